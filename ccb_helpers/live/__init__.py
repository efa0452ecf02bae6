"""Live explorers on the static site: per-explorer exports of the data the page needs (issue #25)."""
