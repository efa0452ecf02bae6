/* ccb-reader: the book's chapters in JupyterLab / Notebook 7 read as on the site (issue #43).
 *
 * A JupyterLab 4 federated extension written by hand (no bundler: the container below is the
 * protocol JupyterLab's bootstrap speaks -- init(shareScope), get(module) -> factory -- and the
 * one module it needs, @jupyterlab/notebook, comes from JupyterLab's own shared scope). It does,
 * for every notebook:
 *
 * - Solutions stay folded. JupyterLab unfolds a cell's outputs whenever it runs (Run All unfolded
 *   every solution, and saving then dropped their folding): the outputs of a solution's code cell
 *   that were folded when it was scheduled to run stay folded. A folded solution cell shows a note,
 *   not its first line of code or output (which was the whole answer of Exercises 1.1 and 3.1).
 *   Solution cells: those between a ```{solution-start}``` and a ```{solution-end}``` Markdown cell.
 * - Links land on their target with JupyterLab's notebook windowing (its default: cells out of view
 *   are not in the page, so a citation missed its entry and a link to another chapter's equation
 *   opened that chapter at the top). A click on a link to an anchor of a notebook (this one or
 *   another: a citation, an equation, a theorem, a heading) finds the cell that defines the anchor
 *   in the notebook's sources, scrolls it into the page and the anchor into view, waiting (for a
 *   time, until the reader scrolls or follows another link) while a just-opened notebook renders
 *   its cells down to that one; a link to a Markdown file (intro.md#def-port-models) opens its
 *   rendered preview at the anchor.
 * - Chinese headings get their own anchors (jupyterlab-myst gave every one the id "id"), and the
 *   block labels read as on the site: 定理 3.1, 练习 3.1, 解答 (jupyterlab-myst writes Theorem,
 *   Exercise, Start of Solution to ...).
 * - Opening a chapter does not make it "modified": the kernel's report of its Python version is
 *   not a change of the reader's (autosave rewrote the file when it differed).
 * - An explorer not run yet shows its saved figure (ipywidgets wrote "Error displaying widget: model
 *   not found" in its place once the kernel was up).
 * - Nothing leaves the machine unasked: jupyterlab-myst's hover previews of GitHub links fetched
 *   api.github.com and raw.githubusercontent.com; those requests are refused (the link still opens).
 */
var _JUPYTERLAB;
(function () {
  "use strict";

  var NAME = "ccb-reader";
  var shareScope = null;

  // -- the shared modules of JupyterLab (webpack's share scope: {name: {version: {get}}}) ----------
  function shared(name) {
    var versions = shareScope && shareScope[name];
    if (!versions) return Promise.reject(new Error(NAME + ": JupyterLab shares no " + name));
    var best = Object.keys(versions).sort(function (a, b) {
      var x = a.split(/[.-]/).map(Number), y = b.split(/[.-]/).map(Number);
      for (var i = 0; i < 3; i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
      return 0;
    }).pop();
    return Promise.resolve(versions[best].get()).then(function (factory) { return factory(); });
  }

  // -- what a folded solution cell shows instead of its first line ------------------------------
  var INPUT_NOTE = "解答（已折叠）：点左侧的竖条展开";
  var OUTPUT_NOTE = "解答的输出（已折叠）：点左侧的竖条展开";

  function solutionCells(model) {
    // Indices of the cells between a solution-start and a solution-end Markdown cell.
    var out = {}, inside = false;
    for (var i = 0; i < model.cells.length; i++) {
      var cell = model.cells.get(i), source = cell.sharedModel.getSource();
      var starts = cell.type === "markdown" && /```\{solution-start\}/.test(source);
      var ends = cell.type === "markdown" && /```\{solution-end\}/.test(source);
      if (inside && !starts) out[i] = true;
      if (starts && !ends) inside = true;
      else if (ends) inside = false;
    }
    return out;
  }

  function fixedText(placeholder, text) {
    // The placeholder's text stays the note, whatever JupyterLab writes into it later.
    if (!placeholder || placeholder.__ccbText) return;
    placeholder.__ccbText = true;
    var proto = Object.getPrototypeOf(placeholder), d;
    while (proto && !(d = Object.getOwnPropertyDescriptor(proto, "text"))) proto = Object.getPrototypeOf(proto);
    if (!d || !d.set) return;
    Object.defineProperty(placeholder, "text", { configurable: true, get: function () { return d.get ? d.get.call(this) : text; },
                                                 set: function () { d.set.call(this, text); } });
    d.set.call(placeholder, text);
  }

  function guardCell(cell) {
    // A cell JupyterLab has not rendered yet (windowing) has no placeholders: set them when it has.
    fixedText(cell._inputPlaceholder, INPUT_NOTE);
    if (cell.model.type === "code") fixedText(cell._outputPlaceholder, OUTPUT_NOTE);
    if (cell.__ccbGuarded) return;
    cell.__ccbGuarded = true;
    // Running a Markdown cell renders it and unfolds it ("rendered = true; inputHidden = false",
    // NotebookActions): a folded solution text that is run stays folded.
    intercept(cell, "inputHidden", function (hidden, set) {
      if (!hidden && this.__ccbKeepInput) { this.__ccbKeepInput = false; return; }
      set(hidden);
    });
    if (cell.model.type === "markdown") {
      intercept(cell, "rendered", function (rendered, set) {
        if (rendered && this.inputHidden) {
          var self = this;
          this.__ccbKeepInput = true;
          Promise.resolve().then(function () { self.__ccbKeepInput = false; }); // only the run's own next step
        }
        set(rendered);
      });
      return;
    }
    cell.getOutputPlaceholderText = function () { return OUTPUT_NOTE; };
    intercept(cell, "outputHidden", function (hidden, set) {
      if (!hidden && this.__ccbKeepFolded) { this.__ccbKeepFolded = false; return; } // the run's "unfold"
      set(hidden);
    });
  }

  // Replace an accessor property of one object: setter(value, originalSet) with `this` the object.
  function intercept(object, name, setter) {
    var proto = Object.getPrototypeOf(object), d;
    while (proto && !(d = Object.getOwnPropertyDescriptor(proto, name))) proto = Object.getPrototypeOf(proto);
    if (!d || !d.set) return;
    Object.defineProperty(object, name, {
      configurable: true,
      get: function () { return d.get.call(this); },
      set: function (value) { var self = this; setter.call(this, value, function (v) { d.set.call(self, v); }); }
    });
  }

  function guardNotebook(notebook) {
    if (!notebook.model) return;
    var solutions = solutionCells(notebook.model);
    notebook.widgets.forEach(function (cell, i) { if (solutions[i]) guardCell(cell); });
  }

  // -- anchors -----------------------------------------------------------------------------------
  function htmlId(label) { return String(label).toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, ""); }

  // A heading's anchor: its text, spaces as "-" (CJK kept: "通用公式", "1-port-下各原语的带宽下界").
  function headingSlug(text) {
    return String(text).replace(/[¶#]/g, "").trim().toLowerCase().replace(/\s+/g, "-")
      .replace(/[^\p{L}\p{N}\-_.]/gu, "").replace(/-{2,}/g, "-").replace(/^-|-$/g, "") || "section";
  }

  var LABELS = [
    /\(([^()\s]+)\)=/g,                       // MyST targets: (ref-chan2007)=
    /\$\$[\s\S]*?\$\$\s*\(([^()\s]+)\)/g,     // equations: $$ ... $$ (eq:label)
    /:label:\s*(\S+)/g,                       // directives' labels (prf:theorem, exercise, figure)
    /```\{(?:exercise|solution-start)\}\s+(\S+)/g
  ];

  // {anchor id: cell index} for every label and heading of a notebook's sources, and the heading
  // anchors per cell (in order).
  function anchors(model) {
    var ids = {}, headings = [], seen = {};
    for (var i = 0; i < model.cells.length; i++) {
      var cell = model.cells.get(i), source = cell.sharedModel.getSource();
      headings.push([]);
      if (cell.type !== "markdown") continue;
      LABELS.forEach(function (pattern) {
        pattern.lastIndex = 0;
        for (var m = pattern.exec(source); m; m = pattern.exec(source)) {
          if (!(htmlId(m[1]) in ids)) ids[htmlId(m[1])] = i;
          if (!(m[1] in ids)) ids[m[1]] = i;
        }
      });
      var inFence = false;
      source.split("\n").forEach(function (line) {
        if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
        var h = !inFence && /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
        if (!h) return;
        var base = headingSlug(h[2]), id = base, k = 1;
        while (seen[id]) id = base + "-" + (k++);
        seen[id] = true;
        headings[i].push(id);
        if (!(id in ids)) ids[id] = i;
      });
    }
    return { ids: ids, headings: headings };
  }

  // The next frame, or 50 ms in a tab the browser does not paint (no animation frames there).
  function frame() {
    return new Promise(function (resolve) {
      var done = false, finish = function () { if (!done) { done = true; resolve(); } };
      requestAnimationFrame(finish);
      setTimeout(finish, 50);
    });
  }

  // The element of anchor `id`: jupyterlab-myst writes a label's id in lower case with "-" for
  // other characters ("ref-panda_osu" -> "ref-panda-osu"), the site keeps it: either is found.
  function findTarget(node, id) {
    var ids = [id, htmlId(id)];
    for (var i = 0; i < ids.length; i++) {
      try {
        var el = node.querySelector('[id="' + ids[i].replace(/["\\]/g, "\\$&") + '"]');
        if (el) return el;
      } catch (e) { /* not a usable id */ }
    }
    return null;
  }

  // How long a link waits for its target's cell to be rendered. JupyterLab's default windowing
  // ("contentVisibility") puts the cells into the page one after another in idle time, from the
  // top; until a cell's turn comes it is a placeholder that scrollToItem cannot reach (it returns
  // at once), so a theorem in cell 28 of chapter 3 appeared seconds after the chapter opened --
  // after 180 frames on a busy machine, when the link had stopped waiting and left the reader at
  // the top. The wait is a time, not a count of frames (frames and idle time slow down together
  // but not alike), and it ends as soon as the reader scrolls or follows another link.
  var TARGET_WAIT_MS = 60000;
  // A cell rendered without the anchor (a label the renderer spells otherwise): its top is shown.
  var RENDERED_WAIT_MS = 10000;
  // After landing, cells above are still measured as they render (estimated heights change): the
  // target is placed again while it drifts, for this long.
  var KEEP_MS = 1500;

  // One landing at a time: a later link's landing ends an earlier one still waiting or keeping
  // its target in place (they scrolled the same notebook against each other).
  var landing = 0;

  // The element in the middle of the notebook's view, or its top at the view's top when it is
  // taller than most of the view (centred, a long proof began above the screen).
  function place(el, box) {
    el.scrollIntoView({ block: el.getBoundingClientRect().height > 0.6 * box.height ? "start" : "center" });
  }

  function isPlaceholder(cell) {
    if (!cell) return false;
    if (typeof cell.isPlaceholder === "function") return cell.isPlaceholder();
    return !!cell.placeholder;
  }

  // Bring the element with anchor `id` of a notebook into view (rendering its cell first).
  function showInNotebook(panel, id) {
    var notebook = panel.content, index = anchors(notebook.model).ids[id];
    var cell = index !== undefined ? notebook.widgets[index] : null;
    var mine = ++landing, readerMoved = false;
    function moved() { readerMoved = true; }
    var READER = ["wheel", "touchmove", "keydown", "pointerdown"];
    READER.forEach(function (name) { notebook.node.addEventListener(name, moved, { capture: true, passive: true }); });
    function done(result) {
      READER.forEach(function (name) { notebook.node.removeEventListener(name, moved, { capture: true }); });
      return result;
    }
    function cancelled() { return mine !== landing || readerMoved || notebook.isDisposed; }
    var el = findTarget(notebook.node, id);
    var start = Promise.resolve();
    if (index !== undefined && !el && notebook.scrollToItem) start = notebook.scrollToItem(index, "start");
    return Promise.resolve(start).catch(function () {}).then(function () {
      var deadline = performance.now() + TARGET_WAIT_MS, renderedSince = null;
      function settle() {
        if (cancelled()) return null;
        el = findTarget(notebook.node, id);
        if (!el) {
          var now = performance.now();
          if (cell && !isPlaceholder(cell)) {
            if (renderedSince === null) {
              renderedSince = now;
              if (notebook.scrollToItem) notebook.scrollToItem(index, "start").catch(function () {});
            }
            if (now - renderedSince > RENDERED_WAIT_MS) { cell.node.scrollIntoView({ block: "start" }); return false; }
          }
          if (now > deadline) return false;
          return frame().then(settle);
        }
        place(el, notebook.node.getBoundingClientRect());
        var until = performance.now() + KEEP_MS;
        function keep() {
          if (cancelled()) return null;
          var target = findTarget(notebook.node, id) || el;
          if (panel.isVisible) {
            var r = target.getBoundingClientRect(), box = notebook.node.getBoundingClientRect();
            var onScreen = r.height > 0 && r.top >= box.top && (r.bottom <= box.bottom || r.top < box.top + box.height / 2);
            if (!onScreen) place(target, box);
          }
          if (performance.now() < until) return frame().then(keep);
          return true;
        }
        return frame().then(keep);
      }
      return settle();
    }).then(function (found) {
      var el = found && findTarget(notebook.node, id);
      if (el) history.replaceState(null, "", location.pathname + location.search + "#" + el.id);
      return done(!!el);
    }, function (err) { done(false); throw err; });
  }

  function showInDocument(widget, id) {
    var mine = ++landing, deadline = performance.now() + TARGET_WAIT_MS;
    function settle() {
      if (mine !== landing || widget.isDisposed) return false;
      var el = findTarget(widget.node, id);
      if (!el && performance.now() < deadline) return frame().then(settle);
      if (el) { el.scrollIntoView({ block: "center" }); history.replaceState(null, "", location.pathname + location.search + "#" + el.id); }
      return !!el;
    }
    return frame().then(settle);
  }

  // A link of a rendered notebook cell: {path, fragment} of a notebook or Markdown file of the server, or null.
  function linkTarget(a, here) {
    var href = a.getAttribute("href") || "";
    if (href.charAt(0) === "#") return { path: here, fragment: decodeURIComponent(href.slice(1)) };
    var url;
    try { url = new URL(href, location.href); } catch (e) { return null; }
    if (url.origin !== location.origin) return null;
    var m = /\/files\/(.+\.(?:ipynb|md))$/.exec(decodeURIComponent(url.pathname));
    if (!m) return null;
    return { path: m[1], fragment: url.hash ? decodeURIComponent(url.hash.slice(1)) : "" };
  }

  // -- labels in Chinese, heading anchors --------------------------------------------------------
  var KINDS = { Theorem: "定理", Definition: "定义", Lemma: "引理", Proposition: "命题", Corollary: "推论", Proof: "证明",
                Example: "例", Remark: "注", Algorithm: "算法", Conjecture: "猜想", Observation: "观察", Property: "性质",
                Exercise: "练习", Solution: "解答", Figure: "图", Table: "表", Equation: "公式", Section: "节" };
  var LABEL = /^(Start of |End of )?(Solution to |Theorem|Definition|Lemma|Proposition|Corollary|Proof|Example|Remark|Algorithm|Conjecture|Observation|Property|Exercise)(?=[\s\u00a0]|$)/;

  var CJK_END = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff65“”‘’][ \t\n]+$/;

  function chinese(text) {
    var m = LABEL.exec(text);
    if (!m) return null;
    var gate = m[1] === "End of " ? "（完）" : "", word = m[2];
    var rest = text.slice(m[0].length);
    if (word === "Solution to ") return "解答" + gate + "：" + (chinese(rest.replace(/^\u00a0/, "")) || rest);
    return KINDS[word] + gate + rest.replace(/^\u00a0/, " ");
  }

  function translate(root) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    var changes = [], gate = null;
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      var parent = n.parentElement;
      if (!parent || parent.closest("code, pre, .katex, mjx-container, .jp-InputArea-editor")) continue;
      // "Start of " / "End of " may be a text node of its own before "Solution to " / "Exercise".
      if (/^(Start of |End of )$/.test(n.data)) { gate = n.data; changes.push([n, ""]); continue; }
      var out = chinese(gate ? gate + n.data : n.data);
      gate = null;
      if (out !== null && out !== n.data) changes.push([n, out]);
    }
    changes.forEach(function (c) {
      c[0].data = c[1];
      // "由 Theorem 3.1" had a blank between Chinese and English; "由 定理 3.1" must not (the site
      // drops a blank between two Chinese characters around a link, as here).
      var host = c[0].parentElement.closest("span[data-state]") || c[0].parentElement.closest("a");
      var before = host && host.previousSibling;
      if (before && before.nodeType === 3 && CJK_END.test(before.data)) before.data = before.data.replace(/[ \t\n]+$/, "");
    });
    root.querySelectorAll("[title^='Link to this '], [aria-label^='Link to this ']").forEach(function (a) {
      ["title", "aria-label"].forEach(function (attr) {
        var v = a.getAttribute(attr), k = v && v.replace("Link to this ", "");
        if (k && KINDS[k]) a.setAttribute(attr, "链接到本" + KINDS[k]);
      });
    });
  }

  function fixHeadings(notebook) {
    if (!notebook.model) return;
    var ids = null;
    notebook.widgets.forEach(function (cell, i) {
      if (cell.model.type !== "markdown") return;
      var hs = Array.prototype.filter.call(cell.node.querySelectorAll("h1, h2, h3, h4, h5, h6"), function (h) {
        return !h.closest(".jp-InputArea-editor, .jp-OutputArea");
      });
      if (!hs.length) return;
      ids = ids || anchors(notebook.model).headings;
      hs.forEach(function (h, k) {
        var want = ids[i] && ids[i][k];
        // jupyterlab-myst's anchor of a heading it cannot spell in ASCII: "id", "id-1-port"
        if (!want || !(h.id === "id" || /^id-/.test(h.id) || h.id === "")) return;
        if (h.id !== want) h.id = want;
        var link = h.querySelector("a[href^='#']");
        if (link && link.getAttribute("href") !== "#" + want) link.setAttribute("href", "#" + want);
      });
    });
  }

  // An explorer's output saved with the notebook is a widget view and its PNG; before the chapter
  // runs, the kernel has no such widget and ipywidgets writes "Error displaying widget: model not
  // found" where the figure should be: show the saved PNG there, and say how to make it live.
  var STATIC_NOTE = "（静态图：运行本格即可操作这个探索器）";

  function showSavedFigures(notebook) {
    notebook.widgets.forEach(function (cell) {
      if (cell.model.type !== "code" || !cell.outputArea) return;
      var children = cell.outputArea.node.querySelectorAll(":scope > .jp-OutputArea-child");
      children.forEach(function (child, k) {
        var out = child.querySelector(".jp-OutputArea-output");
        if (!out || out.__ccbFigure || !/^Error displaying widget: model not found/.test(out.textContent || "")) return;
        var model = cell.model.outputs.get(k), data = model && model.data, png = data && data["image/png"];
        if (!png) return;
        var meta = (model.metadata && model.metadata["image/png"]) || {};
        var img = document.createElement("img");
        img.src = "data:image/png;base64," + String(png).replace(/\s/g, "");
        if (meta.width) img.style.width = "min(100%, " + meta.width + "px)";
        img.alt = meta.ccb_alt || "探索器的静态图";
        var note = document.createElement("div");
        note.className = "ccb-reader-static-note";
        note.textContent = STATIC_NOTE;
        out.textContent = "";
        out.appendChild(note);
        out.appendChild(img);
        out.__ccbFigure = true;
      });
    });
  }

  function watchPanel(app, tracker, nbModule, panel) {
    var notebook = panel.content, scheduled = false;
    function tidy() {
      scheduled = false;
      if (notebook.isDisposed) return;
      [translate, fixHeadings, guardNotebook, showSavedFigures].forEach(function (step) {
        try { step(step === translate ? notebook.node : notebook); }
        catch (err) { console.warn(NAME + ": " + (err && err.stack || err)); }
      });
    }
    // After the renderer's burst of changes, before the next paint where possible. Ids are watched
    // too: while a chapter's cells render, jupyterlab-myst renders the others again and React writes
    // a heading's id back ("id", "id-1") as an attribute change alone, which left it there until the
    // safety net came by, and under load jupyterlab-myst wrote it back each time before a reader saw
    // the fix (a test polling for 10 s saw "id" throughout).
    // The cells just written are relabelled at once, before anything else runs or is painted:
    // while a chapter renders, jupyterlab-myst mounts its cells again and again (a fresh subtree in
    // English, headings with the id "id", each time), and on a busy machine a fix a frame later
    // left them showing for seconds on end (labels in English for 15 s, seen once).
    function touched(records) {
      var cells = [];
      records.forEach(function (r) {
        var node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        var cell = node && node.closest && node.closest(".jp-MarkdownCell");
        if (cell && cells.indexOf(cell) < 0) cells.push(cell);
      });
      if (!cells.length) return;
      try { cells.forEach(translate); fixHeadings(notebook); }
      catch (err) { console.warn(NAME + ": " + (err && err.stack || err)); }
    }
    var observer = new MutationObserver(function (records) {
      touched(records);
      if (!scheduled) { scheduled = true; frame().then(tidy); }
    });
    observer.observe(notebook.node, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["id"] });
    // A safety net: a label or heading the renderer wrote back unseen is caught within a second.
    var stale = ".myst-proof-title, .myst-exercise-title, a.hover-link, .jp-MarkdownCell :is(h1, h2, h3, h4, h5, h6):is([id='id'], [id^='id-'])";
    var timer = setInterval(function () {
      if (!panel.isVisible || scheduled) return;
      var found = Array.prototype.some.call(notebook.node.querySelectorAll(stale), function (e) {
        return /^H\d$/.test(e.tagName) || LABEL.test((e.textContent || "").trim());
      });
      if (found) tidy();
    }, 1000);
    panel.disposed.connect(function () { observer.disconnect(); clearInterval(timer); });
    keepKernelMetadata(panel.context.model);
    panel.context.ready.then(function () {
      tidy();
      notebook.model.cells.changed.connect(function () { frame().then(tidy); });
    });
    // Links: to an anchor of this or another notebook, or to a Markdown file.
    notebook.node.addEventListener("click", function (event) {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      var a = event.target.closest && event.target.closest("a[href]");
      if (!a || !notebook.node.contains(a) || !a.closest(".jp-MarkdownCell") || a.closest(".jp-InputArea-editor")) return;
      var target = linkTarget(a, panel.context.path);
      if (!target) return;
      event.preventDefault();
      event.stopPropagation();
      follow(app, tracker, panel, target);
    }, true);
  }

  // The kernel's language_info (its Python's version) and kernelspec (its display name) are written
  // into the notebook when the kernel starts; when they differ from the file's only there, the file
  // keeps its own: opening a chapter made it "modified" and autosave rewrote it.
  function withoutVersion(info) {
    var copy = JSON.parse(JSON.stringify(info || {}));
    delete copy.version;
    return JSON.stringify(copy, Object.keys(copy).sort());
  }

  function keepKernelMetadata(model) {
    if (!model || model.__ccbKept || typeof model.setMetadata !== "function") return;
    model.__ccbKept = true;
    var original = model.setMetadata;
    model.setMetadata = function (key, value) {
      var old = this.getMetadata(key);
      if (old && value && key === "language_info" && withoutVersion(old) === withoutVersion(value)) return;
      if (old && value && key === "kernelspec" && old.name === value.name && old.language === value.language) return;
      return original.apply(this, arguments);
    };
  }

  function follow(app, tracker, panel, target) {
    var here = panel.context.path;
    var path = target.path.charAt(0) === "/" ? target.path.slice(1) : target.path;
    if (path === here || target.path === here) {
      if (target.fragment) return showInNotebook(panel, target.fragment);
      return Promise.resolve(true);
    }
    var markdown = /\.md$/.test(path);
    var args = markdown ? { path: path, factory: "Markdown Preview" } : { path: path };
    return app.commands.execute("docmanager:open", args).then(function (widget) {
      if (!widget) return false;
      return widget.context.ready.then(function () {
        if (!target.fragment) return true;
        if (widget.content && widget.content.model && widget.content.model.cells) {
          return (widget.content.fullyRendered ? Promise.resolve() : frame()).then(function () { return showInNotebook(widget, target.fragment); });
        }
        return showInDocument(widget, target.fragment);
      });
    });
  }

  // -- requests that would leave the machine unasked ----------------------------------------------
  var PREVIEW_HOSTS = /^https:\/\/(api\.github\.com|raw\.githubusercontent\.com)\//;

  function refuseLinkPreviews() {
    if (window.__ccbFetch) return;
    var original = window.fetch;
    window.__ccbFetch = original;
    window.fetch = function (input, init) {
      var url = typeof input === "string" ? input : (input && input.url) || String(input);
      if (PREVIEW_HOSTS.test(url)) return Promise.reject(new TypeError("the book's link previews do not leave the machine"));
      return original.apply(this, arguments);
    };
  }

  function plugin(nbModule) {
    return {
      id: "ccb-reader:plugin",
      description: "The book's chapters read as on the site: solutions stay folded, links land, labels in Chinese.",
      autoStart: true,
      requires: [nbModule.INotebookTracker],
      activate: function (app, tracker) {
        refuseLinkPreviews();
        tracker.widgetAdded.connect(function (sender, panel) { watchPanel(app, tracker, nbModule, panel); });
        tracker.forEach(function (panel) { watchPanel(app, tracker, nbModule, panel); });
        // A solution cell folded when it is scheduled to run stays folded (NotebookActions).
        var actions = nbModule.NotebookActions;
        if (actions && actions.executionScheduled) {
          actions.executionScheduled.connect(function (sender, args) {
            var cell = args && args.cell;
            if (cell && cell.__ccbGuarded && cell.model.type === "code" && cell.outputHidden) cell.__ccbKeepFolded = true;
          });
          actions.executed.connect(function (sender, args) {
            if (args && args.cell) args.cell.__ccbKeepFolded = false;
          });
        }
        window.ccbReader = { anchors: anchors, headingSlug: headingSlug, chinese: chinese, follow: function (path, fragment) {
          var panel = tracker.currentWidget;
          return follow(app, tracker, panel, { path: path, fragment: fragment });
        } };
      }
    };
  }

  // -- the federated container -------------------------------------------------------------------
  _JUPYTERLAB = _JUPYTERLAB || {};
  _JUPYTERLAB[NAME] = {
    init: function (scope) { shareScope = scope; return Promise.resolve(); },
    get: function (module) {
      if (module !== "./extension") return Promise.reject(new Error(NAME + " has no module " + module));
      return shared("@jupyterlab/notebook").then(function (nbModule) {
        return function () { return { __esModule: true, default: [plugin(nbModule)] }; };
      });
    }
  };
  window._JUPYTERLAB = _JUPYTERLAB;
})();
