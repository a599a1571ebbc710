// The report's few interactions; nothing is loaded from anywhere.
(function () {
  'use strict';
  var svg = document.getElementById('plan');
  if (svg) { graph(svg); }
  var table = document.getElementById('pkg-table');
  if (table) { sortable(table); }
  // The script ran to its end (the tests look for this).
  document.body.setAttribute('data-ready', '1');

  function graph(svg) {
    var W = +svg.getAttribute('data-w'), H = +svg.getAttribute('data-h');
    var nw = +svg.getAttribute('data-nw'), nh = +svg.getAttribute('data-nh');
    var nodes = Array.prototype.slice.call(svg.querySelectorAll('g.node'));
    var edges = Array.prototype.slice.call(svg.querySelectorAll('path.edge'));
    var layouts = JSON.parse(document.getElementById('env-layouts').textContent);
    var pos = {}, home = {}, paths = [];
    nodes.forEach(function (n) {
      var m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(n.getAttribute('transform'));
      home[n.getAttribute('data-i')] = [+m[1], +m[2]];
    });
    edges.forEach(function (e) { paths.push(e.getAttribute('d')); });
    var cur = { w: W, h: H }, scale = 1;
    function size() {
      svg.setAttribute('width', Math.round(cur.w * scale));
      svg.setAttribute('height', Math.round(cur.h * scale));
      svg.setAttribute('viewBox', '0 0 ' + cur.w + ' ' + cur.h);
    }
    function curve(a, b) {
      var x1 = a[0] + nw, y1 = a[1] + nh / 2, x2 = b[0], y2 = b[1] + nh / 2, mx = (x1 + x2) / 2;
      return 'M' + x1 + ',' + y1 + 'C' + mx + ',' + y1 + ' ' + mx + ',' + y2 + ' ' + x2 + ',' + y2;
    }
    function show(env) {
      var L = env === '' ? null : layouts[env];
      pos = L ? L.p : home;
      nodes.forEach(function (n) {
        var p = pos[n.getAttribute('data-i')];
        n.style.display = p ? '' : 'none';
        if (p) { n.setAttribute('transform', 'translate(' + p[0] + ',' + p[1] + ')'); }
      });
      edges.forEach(function (e, k) {
        var a = pos[e.getAttribute('data-d')], b = pos[e.getAttribute('data-u')];
        e.style.display = a && b ? '' : 'none';
        if (a && b) { e.setAttribute('d', L ? curve(a, b) : paths[k]); }
      });
      cur = L ? { w: L.w, h: L.h } : { w: W, h: H };
      size();
    }
    pos = home;
    Array.prototype.forEach.call(document.querySelectorAll('button.env'), function (b) {
      b.addEventListener('click', function () {
        Array.prototype.forEach.call(document.querySelectorAll('button.env'), function (o) {
          o.classList.toggle('on', o === b);
        });
        show(b.getAttribute('data-env'));
      });
    });
    function zoom(f) { scale = Math.max(0.1, Math.min(4, scale * f)); size(); }
    document.getElementById('zoom-in').addEventListener('click', function () { zoom(1.25); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoom(0.8); });
    document.getElementById('zoom-fit').addEventListener('click', function () {
      var box = svg.parentNode.clientWidth - 4;
      scale = Math.min(1, box / cur.w); size();
    });
    function light(i, on) {
      edges.forEach(function (e) {
        var hit = e.getAttribute('data-d') === i || e.getAttribute('data-u') === i;
        e.classList.toggle('hl', on && hit);
      });
      nodes.forEach(function (n) { n.classList.toggle('hl', on && n.getAttribute('data-i') === i); });
    }
    svg.addEventListener('mouseover', function (ev) {
      var n = ev.target.closest && ev.target.closest('g.node');
      if (n) { light(n.getAttribute('data-i'), true); }
    });
    svg.addEventListener('mouseout', function (ev) {
      var n = ev.target.closest && ev.target.closest('g.node');
      if (n) { light(n.getAttribute('data-i'), false); }
    });
    // `report.html#env=N` opens with environment N laid out alone.
    var want = /env=(\d+)/.exec(location.hash);
    if (want) {
      var b = document.querySelector('button.env[data-env="' + want[1] + '"]');
      if (b) { b.click(); }
    }
    svg.addEventListener('click', function (ev) {
      var n = ev.target.closest && ev.target.closest('g.node');
      if (!n) { return; }
      var row = document.getElementById('p-' + n.getAttribute('data-i'));
      if (row) {
        Array.prototype.forEach.call(document.querySelectorAll('tr.target'), function (r) { r.classList.remove('target'); });
        row.classList.add('target');
        row.scrollIntoView({ block: 'center' });
      }
    });
  }

  function sortable(table) {
    var body = table.tBodies[0];
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var desc = false;
      th.addEventListener('click', function () {
        desc = !desc;
        var rows = Array.prototype.slice.call(body.rows);
        var numeric = th.classList.contains('n');
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col], r;
          if (numeric) { r = (+x.getAttribute('data-k')) - (+y.getAttribute('data-k')); }
          else { r = x.textContent.localeCompare(y.textContent); }
          return desc ? -r : r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
})();
