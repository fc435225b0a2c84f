// gpuisa web reference: search as you type, keyboard navigation, list filter.
// Live server: results from /api/search. Static export: from static/search-index.js, loaded on demand.
// Text from the catalog is only ever set with textContent, never parsed as HTML.
(function () {
  "use strict";
  var body = document.body;
  var mode = body.getAttribute("data-mode") || "live";
  var root = body.getAttribute("data-root") || "/";
  var suffix = body.getAttribute("data-suffix") || "";

  function pageUrl(name, vendor, arch) {
    var top = vendor === "nvidia" ? "ptx/" : "amd/";
    var mid = arch && vendor !== "nvidia" ? encodeURIComponent(arch) + "/" : "";
    return root + top + mid + encodeURIComponent(name) + suffix;
  }

  // ------------------------------------------------------------ static index (export only)
  var indexPromise = null;
  function loadIndex() {
    if (window.GPUISA_INDEX) return Promise.resolve(window.GPUISA_INDEX);
    if (!indexPromise) {
      indexPromise = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = root + "static/search-index.js";
        s.onload = function () { resolve(window.GPUISA_INDEX || []); };
        s.onerror = function () { reject(new Error("search index not found")); };
        document.head.appendChild(s);
      });
    }
    return indexPromise;
  }

  function localSearch(index, text, arch, limit) {
    var q = text.trim().toLowerCase().replace(/_e(32|64|64_dpp|dpp|sdwa)$/, "");
    if (!q) return [];
    var terms = q.split(/[^\w.]+/).filter(Boolean);
    var buckets = [[], [], [], []];
    for (var i = 0; i < index.length; i++) {
      var row = index[i], name = row[0];
      if (arch && (" " + row[2] + " ").indexOf(" " + arch + " ") < 0) continue;
      var rank;
      if (name === q) rank = 0;
      else if (name.indexOf(q) === 0) rank = 1;
      else if (name.indexOf(q) >= 0) rank = 2;
      else {
        var hay = (name + " " + row[3]).toLowerCase(), all = terms.length > 0;
        for (var t = 0; t < terms.length && all; t++) all = hay.indexOf(terms[t]) >= 0;
        if (!all) continue;
        rank = 3;
      }
      buckets[rank].push(row);
    }
    buckets[1].sort(function (a, b) { return a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1); });
    var out = [], how = ["name", "prefix", "name", "text"];
    for (var r = 0; r < 4 && out.length < limit; r++) {
      for (var k = 0; k < buckets[r].length && out.length < limit; k++) {
        var x = buckets[r][k];
        out.push({ name: x[0], vendor: x[1], archs: x[2].split(" "), summary: x[3], match: how[r] });
      }
    }
    return out;
  }

  function search(text, limit, arch) {
    if (mode === "static") {
      return loadIndex().then(function (index) { return localSearch(index, text, arch, limit); });
    }
    var url = root + "api/search?limit=" + limit + "&q=" + encodeURIComponent(text) + (arch ? "&arch=" + encodeURIComponent(arch) : "");
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      return r.ok ? r.json() : [];
    });
  }

  // ------------------------------------------------------------ search box with suggestions
  var input = document.getElementById("q");
  var list = document.getElementById("q-results");
  var form = document.getElementById("search-form");
  var active = -1, seq = 0, timer = null;

  function items() { return list ? list.querySelectorAll("li[role=option]") : []; }

  function close() {
    if (!list) return;
    list.hidden = true;
    list.textContent = "";
    list.removeAttribute("data-query");
    list.removeAttribute("aria-busy");
    active = -1;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  function highlight(i) {
    var li = items();
    if (!li.length) return;
    active = (i + li.length) % li.length;
    for (var k = 0; k < li.length; k++) li[k].setAttribute("aria-selected", k === active ? "true" : "false");
    input.setAttribute("aria-activedescendant", li[active].id);
    li[active].scrollIntoView({ block: "nearest" });
  }

  function show(results, text) {
    list.textContent = "";
    active = -1;
    list.setAttribute("data-query", text);  // what the shown suggestions answer (tests and scripts wait on it)
    list.removeAttribute("aria-busy");
    if (!results.length) {
      var none = document.createElement("li");
      none.className = "empty";
      none.textContent = "No instruction matches \u201c" + text + "\u201d";
      list.appendChild(none);
    }
    results.forEach(function (r, i) {
      var li = document.createElement("li");
      li.id = "q-opt-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      var a = document.createElement("a");
      a.href = pageUrl(r.name, r.vendor);
      var n = document.createElement("span");
      n.className = "sname";
      n.textContent = r.name;
      var s = document.createElement("span");
      s.className = "ssum";
      s.textContent = (r.vendor === "nvidia" ? "PTX \u00b7 " : "") + (r.summary || "");
      a.appendChild(n);
      a.appendChild(s);
      li.appendChild(a);
      li.addEventListener("mousedown", function (ev) { ev.preventDefault(); window.location.href = a.href; });
      list.appendChild(li);
    });
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }

  if (input && list) {
    input.addEventListener("input", function () {
      var text = input.value;
      clearTimeout(timer);
      if (!text.trim()) { close(); return; }
      // The shown suggestions answer an older text until the new answer comes: mark them stale, and let
      // Enter submit the typed text instead of following a suggestion chosen for the old one.
      if (list.getAttribute("data-query") !== text) {
        list.setAttribute("aria-busy", "true");
        if (active >= 0) {
          items()[active].setAttribute("aria-selected", "false");
          active = -1;
          input.removeAttribute("aria-activedescendant");
        }
      }
      timer = setTimeout(function () {
        var mine = ++seq;
        search(text, 10).then(function (results) {
          if (mine === seq && input.value === text) show(results, text);
        }).catch(function () { close(); });
      }, 90);
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown") { ev.preventDefault(); if (!list.hidden) highlight(active + 1); }
      else if (ev.key === "ArrowUp") { ev.preventDefault(); if (!list.hidden) highlight(active - 1); }
      else if (ev.key === "Escape" && !list.hidden) { ev.preventDefault(); close(); }  // keep the typed text
      else if (ev.key === "Enter" && active >= 0) {
        ev.preventDefault();
        var a = items()[active].querySelector("a");
        if (a) window.location.href = a.href;
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 150); });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "/" && document.activeElement !== input && !/input|select|textarea/i.test(document.activeElement.tagName)) {
        ev.preventDefault();
        input.focus();
      }
    });
  }

  // ------------------------------------------------------------ static search page
  var pageResults = document.getElementById("search-page-results");
  if (mode === "static" && pageResults && form) {
    var params = new URLSearchParams(window.location.search);
    var q = params.get("q") || "", arch = params.get("arch") || "";
    var q2 = document.getElementById("q2"), sel = document.getElementById("arch");
    if (q2) q2.value = q;
    if (input) input.value = q;
    if (sel) sel.value = arch;
    if (q.trim()) {
      search(q, 100, arch).then(function (results) {
        pageResults.textContent = "";
        var p = document.createElement("p");
        p.className = "muted";
        p.textContent = results.length + (results.length === 1 ? " result" : " results") + " for \u201c" + q + "\u201d" + (arch ? " in " + arch : "") + ".";
        pageResults.appendChild(p);
        var ol = document.createElement("ol");
        ol.className = "results";
        results.forEach(function (r) {
          var li = document.createElement("li");
          li.setAttribute("data-match", r.match);
          var a = document.createElement("a");
          a.href = pageUrl(r.name, r.vendor, arch);
          var c = document.createElement("code");
          c.textContent = r.name;
          a.appendChild(c);
          li.appendChild(a);
          li.appendChild(document.createElement("br"));
          li.appendChild(document.createTextNode(r.summary || ""));
          ol.appendChild(li);
        });
        pageResults.appendChild(ol);
      });
    }
  }

  // ------------------------------------------------------------ arch page filter
  var filter = document.querySelector("input[data-filter]");
  if (filter) {
    var scope = document.querySelector(filter.getAttribute("data-filter"));
    var rows = scope ? scope.querySelectorAll(".ilist li") : [];
    filter.addEventListener("input", function () {
      var terms = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (var i = 0; i < rows.length; i++) {
        var text = rows[i].textContent.toLowerCase(), ok = true;
        for (var t = 0; t < terms.length && ok; t++) ok = text.indexOf(terms[t]) >= 0;
        rows[i].hidden = !ok;
      }
    });
  }

  // ------------------------------------------------------------ copy buttons
  // Elements marked data-copy (identifier, bytes, example assembly) get a button that copies their text.
  var copyable = document.querySelectorAll("[data-copy]");
  for (var c = 0; c < copyable.length; c++) {
    (function (el) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "copy";
      b.textContent = "copy";
      b.setAttribute("aria-label", "Copy " + (el.getAttribute("data-copy") || "text"));
      b.addEventListener("click", function () {
        var text = el.textContent;
        var done = function () { b.textContent = "copied"; b.classList.add("done"); };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { b.textContent = "select and copy"; });
        } else {
          var range = document.createRange();
          range.selectNodeContents(el);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          b.textContent = "selected: press Ctrl+C";
        }
      });
      el.insertAdjacentElement("afterend", b);
    })(copyable[c]);
  }
})();
