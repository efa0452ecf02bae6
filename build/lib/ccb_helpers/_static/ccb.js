// The book's additions to sphinx-book-theme (served by ccb_helpers.sphinxext).
"use strict";

// 1. Tables wider than the page: a visible hint above them, and an edge marker until scrolled to the end.
const ccbTables = () => {
  for (const box of document.querySelectorAll("article .pst-scrollable-table-container")) {
    let hint = box.previousElementSibling;
    if (!hint || !hint.classList.contains("ccb-scroll-hint")) {
      hint = document.createElement("div");
      hint.className = "ccb-scroll-hint";
      hint.setAttribute("role", "note");
      hint.textContent = "表格较宽：左右滑动可看到全部列 →";
      box.parentNode.insertBefore(hint, box);
      box.addEventListener("scroll", () => box.classList.toggle("ccb-at-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 2));
    }
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    hint.hidden = !scrolls;
    box.classList.toggle("ccb-scrolls", scrolls);
    box.classList.toggle("ccb-at-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 2);
  }
};

// 2. Search snippets: text of the article only (no buttons, page TOC, hidden setup code), math as
//    readable text instead of TeX source, and each page listed once.
const CCB_SYMBOLS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", lambda: "λ", mu: "μ", pi: "π", sigma: "σ", tau: "τ",
  Delta: "Δ", Sigma: "Σ", cdot: "·", times: "×", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠",
  approx: "≈", infty: "∞", sum: "∑", in: "∈", to: "→", rightarrow: "→", Rightarrow: "⇒", lceil: "⌈", rceil: "⌉",
  lfloor: "⌊", rfloor: "⌋", log: "log", max: "max", min: "min", ldots: "…", dots: "…", cdots: "⋯", mid: "|",
  propto: "∝", subset: "⊂", cup: "∪", cap: "∩", forall: "∀", exists: "∃", prod: "∏", sqrt: "√",
};

const CCB_SUP = Object.fromEntries([..."0123456789+-=()abcdefghijklmnoprstuvwxyzαβγδ"].map((c, i) =>
  [c, [..."⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵅᵝᵞᵟ"][i]]));
const CCB_SUB = Object.fromEntries([..."0123456789+-=()aehijklmnoprstuvxβγρφχ"].map((c, i) =>
  [c, [..."₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"][i]]));

// Reads one {...} group (nested braces allowed) at s[i]; returns [content, index after it] or null.
const ccbGroup = (s, i) => {
  while (s[i] === " ") i++;
  if (s[i] !== "{") return null;
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === "\\") { j++; continue; }
    if (s[j] === "{") depth++;
    else if (s[j] === "}" && --depth === 0) return [s.slice(i + 1, j), j + 1];
  }
  return null;
};

// Replaces every \name{a}{b}... (n groups) by f(a, b, ...).
const ccbReplaceCommand = (s, name, n, f) => {
  const re = new RegExp("\\\\" + name + "(?![A-Za-z])", "g");
  let out = "", last = 0, m;
  while ((m = re.exec(s))) {
    const args = [];
    let i = m.index + m[0].length;
    for (let k = 0; k < n; k++) {
      const g = ccbGroup(s, i);
      if (!g) break;
      args.push(g[0]);
      i = g[1];
    }
    if (args.length !== n) continue;
    out += s.slice(last, m.index) + f(...args);
    last = i;
    re.lastIndex = i;
  }
  return out + s.slice(last);
};

const ccbTexToText = (tex) => {
  let s = tex.replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "");
  s = s.replace(/\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}/g, " ").replace(/\\label\{[^}]*\}/g, "");
  const macros = window.CCB_TEX_MACROS || {};
  for (let pass = 0; pass < 3; pass++) {  // the book's macros: \ceil{x} -> \left\lceil x \right\rceil
    for (const [name, def] of Object.entries(macros)) {
      const body = Array.isArray(def) ? def[0] : def;
      const n = Array.isArray(def) ? def[1] : 0;
      s = ccbReplaceCommand(s, name, n, (...args) => " " + body.replace(/#(\d)/g, (_, k) => args[Number(k) - 1]) + " ");
    }
  }
  for (let pass = 0; pass < 3; pass++) {
    // a/b reads right only with parentheses where precedence needs them: a sum on top, any product
    // below ("M/(Nβ)", not "M/Nβ"), and a product after it ("2(N-1)/N·M", not "(2(N-1))/NM").
    s = ccbReplaceCommand(s, "frac", 2, (a, b) => {
      const top = a.trim(), bottom = b.trim();
      const num = /[+\-−±\/ ]|\\(cdot|times)/.test(top.replace(/\\[A-Za-z]+\s*/g, "x").replace(/\([^()]*\)/g, "x")) ? "(" + top + ")" : top;
      const den = /^(\d+(\.\d+)?|[A-Za-z]|\\[A-Za-z]+)$/.test(bottom) ? bottom : "(" + bottom + ")";
      return num + "/" + den + "\u0001";
    });
    for (const name of ["text", "mathrm", "mathbf", "mathit", "operatorname", "textbf", "mathsf", "boldsymbol"]) {
      s = ccbReplaceCommand(s, name, 1, (a) => a);
    }
  }
  s = s.replace(/\\(left|right|big|Big|bigg|Bigg)(?![A-Za-z])/g, "");
  s = s.replace(/\\(quad|qquad)(?![A-Za-z])/g, " ").replace(/\\[,;:! ]/g, " ").replace(/~/g, " ");
  s = s.replace(/\\\\/g, " ").replace(/&/g, " ");
  s = s.replace(/\\([A-Za-z]+)/g, (m, name) => (name in CCB_SYMBOLS ? CCB_SYMBOLS[name] : name));
  // Sub- and superscripts as Unicode where every character has one ("T_αᵐⁱⁿ", "2ᵏ"), else "_(ij)".
  s = s.replace(/([_^])\{([^{}]*)\}/g, (m, op, x) => op + "{" + x.trim() + "}");
  s = s.replace(/([_^])(?:\{([^{}]*)\}|([A-Za-z0-9α-ω]))/g, (m, op, group, one) => {
    const x = (group !== undefined ? group : one).replace(/\s+/g, "");
    const table = op === "^" ? CCB_SUP : CCB_SUB;
    if (x.length && [...x].every((c) => c in table)) return [...x].map((c) => table[c]).join("");
    return x.length > 1 ? op + "(" + x + ")" : op + x;
  });
  s = s.replace(/\\([{}%#_^|])/g, "$1").replace(/[{}]/g, "");
  s = s.replace(/\u0001\s*(?=[A-Za-z0-9(α-ωΑ-Ω⌈⌊])/g, "·").replace(/\u0001/g, "");
  return s.replace(/\s+/g, " ").replace(/([⌈⌊(]) /g, "$1").replace(/ ([⌉⌋)])/g, "$1").trim();
};

const ccbPatchSearch = () => {
  if (typeof Search === "undefined" || Search.ccbPatched) return;
  Search.ccbPatched = true;
  const DROP = [".headerlink", "script", "style", "button", "nav", ".bd-toc", ".bd-sidebar-secondary",
    ".header-article-items", ".bd-header-article", ".prev-next-area", "footer", ".dropdown-menu", ".eqno",
    ".tag_hide-input .cell_input", ".tag_remove-input", "summary", ".toggle-hidden-message", ".ccb-scroll-hint", "mjx-container"];
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    for (const query of DROP) doc.querySelectorAll(query).forEach((el) => el.remove());
    doc.querySelectorAll(".math").forEach((el) => { el.textContent = " " + ccbTexToText(el.textContent) + " "; });
    const main = doc.querySelector("article") || doc.querySelector('[role="main"]');
    if (!main) return "";
    // Prose before code: the snippet shows the first place the term occurs, so code cells and
    // their outputs go after the prose (a term in both is shown where the text explains it).
    const proseFirst = (root) => {
      const code = Array.from(root.querySelectorAll(".cell_input, .cell_output, div.highlight, pre"))
        .filter((el) => !el.parentElement.closest(".cell_input, .cell_output, div.highlight, pre"));
      const tail = code.map((el) => el.textContent).join(" ");
      code.forEach((el) => el.remove());
      return (root.textContent + " " + tail).replace(/\s+/g, " ");
    };
    if (anchor) {
      const part = main.querySelector(anchor);
      if (part) return proseFirst(part);
    }
    return proseFirst(main);
  };
  // One result per page: a page whose title also matched as a section (or an untitled admonition)
  // was listed twice. Results are displayed from the end of the list (best last), so keep the last.
  const perform = Search._performSearch;
  Search._performSearch = (...args) => {
    const results = perform(...args);
    const seen = new Set();
    const kept = [];
    for (let i = results.length - 1; i >= 0; i--) {
      const key = results[i][0];
      if (seen.has(key)) continue;
      seen.add(key);
      kept.push(results[i]);
    }
    return kept.reverse();
  };
};

// 3. Phone and tablet drawers (the chapter menu and the page TOC open as <dialog>s below 960 px):
//    tapping a link in one closes it, so the section it leads to is not left under the drawer.
//    Closing a modal dialog gives the focus back to the button that opened it, which scrolls the
//    page back up to that button: so for a link into this page, close first, then go to the section.
const ccbCloseDrawerOnLink = (event) => {
  const link = event.target.closest && event.target.closest("a[href]");
  const dialog = link && link.closest("#pst-primary-sidebar-modal, #pst-secondary-sidebar-modal");
  if (!dialog || !dialog.open) return;
  const url = new URL(link.href, location.href);
  const samePage = url.origin === location.origin && url.pathname === location.pathname && url.hash;
  const target = samePage && document.getElementById(decodeURIComponent(url.hash.slice(1)));
  if (!target) {  // another page: it replaces this one, the drawer only has to go
    dialog.close();
    return;
  }
  event.preventDefault();
  dialog.close();
  if (location.hash !== url.hash) history.pushState(null, "", url.hash);
  target.scrollIntoView();
};

// 4. Figures: every figure opens whole on a tap (Sphinx links only the figures it scaled; the
//    explorers' PNGs had no link), is shown at its own CSS width (2x PNGs: half the pixels), and
//    on a phone keeps that width in a box that scrolls sideways, with a hint: shrunk to 358 px its
//    text was 5-8 px. A notebook figure comes in a <picture> with a phone rendering (panels
//    stacked, 350 px: ccb_helpers.phone_pictures) whose "2x" srcset sizes it without a script.
//    Live explorers ([data-explorer]) draw their own SVG and are left alone.
const ccbFigures = () => {
  for (const img of document.querySelectorAll("article .cell_output img, article figure img")) {
    if (img.closest("[data-explorer]")) continue;
    const size = () => {
      if (img.closest("picture.ccb-picture")) return;  // sized by its srcset, whichever source is shown
      if (!img.style.width && img.naturalWidth > 0) img.style.width = Math.round(img.naturalWidth / 2) + "px";
    };
    if (img.complete) size(); else img.addEventListener("load", size, {once: true});
    if (!img.closest("a[href]")) {
      const link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "reference internal image-reference ccb-enlarge";
      link.title = "点按查看原图";
      // The link goes around a <picture>, not inside it: an <img> that is not the picture's own
      // child no longer follows its <source>s (a phone got the desktop figure).
      const box = img.parentElement.matches("picture") ? img.parentElement : img;
      box.parentNode.insertBefore(link, box);
      link.appendChild(box);
    }
  }
  for (const out of document.querySelectorAll("article .cell_output")) {
    // An output holding a live explorer draws its own SVG to the width; its no-JS PNG (hidden once
    // the explorer is drawn) made the hint appear, and stay, above the explorer on a phone.
    if (!out.querySelector("img") || out.closest("[data-explorer]") || out.querySelector("[data-explorer]")) continue;
    let hint = out.previousElementSibling;
    if (!hint || !hint.classList.contains("ccb-figure-hint")) {
      hint = document.createElement("div");
      hint.className = "ccb-scroll-hint ccb-figure-hint";
      hint.setAttribute("role", "note");
      hint.textContent = "图较宽：左右滑动可看全图，点按图可放大 →";
      out.parentNode.insertBefore(hint, out);
    }
    hint.hidden = !(out.scrollWidth > out.clientWidth + 1);
  }
};

// 4. Numbered display formulas wider than the column (phones): the theme floats the number at the
//    right, over the formula's end (chapter 8's busbw read "c(N) = max" under "(8.1)" at 390 px).
//    Such a formula gets ccb-eq-wide: its number goes below it at the right, as amsmath sets a tag
//    that does not fit, and the formula scrolls sideways (ccb.css).
const ccbEquations = () => {
  for (const box of document.querySelectorAll("article div.math")) {
    const number = box.querySelector(":scope > .eqno");
    const formula = box.querySelector(":scope > mjx-container > mjx-math");
    if (!number || !formula) continue;
    box.classList.remove("ccb-eq-wide");  // measured as the theme lays it out: beside its number
    const container = formula.parentElement;
    box.classList.toggle("ccb-eq-wide", container.scrollWidth > container.clientWidth + 1);
  }
};

// searchtools.js comes after this script on search.html: patch when the document is parsed, before
// Search.init (registered later, so it runs after this listener).
document.addEventListener("click", ccbCloseDrawerOnLink);
document.addEventListener("DOMContentLoaded", () => {
  ccbPatchSearch();
  ccbTables();
  ccbFigures();
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(() => { ccbTables(); ccbEquations(); });
  }
  if (document.fonts) document.fonts.ready.then(ccbEquations);  // the number's width is the text font's
  if (window.ResizeObserver) {
    const observer = new ResizeObserver(() => ccbTables());
    document.querySelectorAll("article .pst-scrollable-table-container table").forEach((t) => observer.observe(t));
  }
});
window.addEventListener("load", () => { ccbTables(); ccbFigures(); });
window.addEventListener("resize", () => { ccbTables(); ccbFigures(); ccbEquations(); });
