// The report's timeline (embedded in the HTML by obs_report_tl.c; no network, no library).
// Data: the JSON in <script id="psim-data">. Times are integers in units of D.q seconds.
// Rows are ranks (or VPs), or fixed blocks of consecutive ranks when there are more ranks
// than rows fit: a block shows, per time bin, the share of its ranks in each state (stacked);
// a click expands it (into ranks, or into 16 smaller blocks), shift-click collapses it back.
// The wheel zooms around the pointer, a drag pans, hovering names the action, its duration
// and its file:line. The critical path is the band above the rows.
(function () {
  'use strict';
  var el = document.getElementById('psim-data');
  var cv = document.getElementById('timeline-canvas');
  if (!el || !cv) return;
  var D = JSON.parse(el.textContent);
  var tip = document.getElementById('timeline-tip');
  var ctx = cv.getContext('2d');
  var LEFT = 120, RIGHT = 16, BAND = 14, TOP = BAND + 8, AXIS = 34, MAXROWS = 64;
  var W = 960, NS = D.labels.length, IDLE = 5;
  var t0 = 0, t1 = D.T > 0 ? D.T : 1;
  var dec = {}, groupCache = {};
  var rows = [];

  function ints(s) {
    if (!s) return [];
    var p = s.split(','), a = new Float64Array(p.length);
    for (var i = 0; i < p.length; i++) a[i] = +p[i];
    return a;
  }
  // a rank's pieces as absolute [start, end, kind, line, state] (quantum units), decoded once
  function acts(r) {
    if (dec[r]) return dec[r];
    var a = ints(D.acts[r]), t = 0, line = 0;
    for (var i = 0; i + 4 < a.length; i += 5) {
      a[i] += t; a[i + 1] += a[i]; t = a[i + 1]; line += a[i + 3]; a[i + 3] = line;
    }
    return (dec[r] = a);
  }
  // per bin, how many ranks of [lo, hi) were in each state (from the per-rank state bins)
  function groupCounts(lo, hi) {
    var k = lo + ':' + hi;
    if (groupCache[k]) return groupCache[k];
    var c = new Uint32Array(D.nb * NS);
    for (var r = lo; r < hi; r++) {
      var s = D.rs[r];
      for (var b = 0; b < D.nb; b++) c[b * NS + (s.charCodeAt(b) - 48)]++;
    }
    return (groupCache[k] = c);
  }
  function blocks(lo, hi, n) {
    var out = [];
    for (var g = 0; g < n; g++) {
      var a = lo + Math.floor(g * (hi - lo) / n), b = lo + Math.floor((g + 1) * (hi - lo) / n);
      if (b > a) out.push({lo: a, hi: b});
    }
    return out;
  }
  function reset() { rows = D.np <= MAXROWS ? blocks(0, D.np, D.np) : blocks(0, D.np, MAXROWS); }
  function rowH() { return rows.length <= 16 ? 18 : rows.length <= 64 ? 8 : rows.length <= 160 ? 4 : 3; }
  function X(t) { return LEFT + (W - LEFT - RIGHT) * (t * D.q - t0) / (t1 - t0); }
  function T(x) { return t0 + (t1 - t0) * (x - LEFT) / (W - LEFT - RIGHT); }
  function fmt(t) {
    var a = Math.abs(t);
    if (a === 0) return '0 s';
    if (a >= 1) return +t.toPrecision(5) + ' s';
    if (a >= 1e-3) return +(t * 1e3).toPrecision(4) + ' ms';
    return +(t * 1e6).toPrecision(4) + ' us';
  }
  function name(r) { return (D.who || 'rank') + ' ' + r; }
  function label(row) { return row.hi - row.lo === 1 ? name(row.lo) : row.lo + '-' + (row.hi - 1) + ' +'; }

  function drawRank(r, y, h) {
    var px0 = LEFT, px1 = W - RIGHT;
    if (D.acts) {
      var a = acts(r), lastX = -1, lastC = -1, lo = t0 / D.q, hi = t1 / D.q;
      var i = 0, j = a.length / 5;   // first piece ending after t0 (binary search)
      while (i < j) { var m = (i + j) >> 1; if (a[m * 5 + 1] < lo) i = m + 1; else j = m; }
      for (i *= 5; i < a.length && a[i] <= hi; i += 5) {
        var c = a[i + 4], x0 = Math.max(px0, X(a[i])), x1 = Math.min(px1, X(a[i + 1]));
        if (c === IDLE) continue;
        if (x1 - x0 < 1) { if (Math.floor(x0) === lastX && c === lastC) continue; x1 = x0 + 1; }
        ctx.fillStyle = D.colours[c];
        ctx.fillRect(x0, y, x1 - x0, h);
        lastX = Math.floor(x0); lastC = c;
      }
    } else drawBins(groupCounts(r, r + 1), 1, y, h);
  }
  function drawBins(c, n, y, h) {
    var bw = D.T / D.nb;
    for (var b = 0; b < D.nb; b++) {
      var x0 = Math.max(LEFT, X(b * bw / D.q)), x1 = Math.min(W - RIGHT, X((b + 1) * bw / D.q));
      if (x1 <= LEFT || x0 >= W - RIGHT) continue;
      var yy = y;
      for (var s = 0; s < NS; s++) {
        var k = c[b * NS + s];
        if (!k) continue;
        var hh = h * k / n;
        ctx.fillStyle = D.colours[s];
        ctx.fillRect(x0, yy, x1 - x0 + 0.5, hh);
        yy += hh;
      }
    }
  }
  function niceStep(span) {
    var s = Math.pow(10, Math.floor(Math.log(span / 5) / Math.LN10)), k = span / s;
    return k > 25 ? s * 5 : k > 10 ? s * 2 : s;
  }
  function draw() {
    var h = rowH(), H = TOP + rows.length * h + AXIS, dpr = window.devicePixelRatio || 1;
    cv.width = W * dpr; cv.height = H * dpr; cv.style.width = W + 'px'; cv.style.height = H + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    ctx.font = '11px sans-serif'; ctx.textBaseline = 'middle';
    // critical path band
    ctx.fillStyle = '#f4f4f4'; ctx.fillRect(LEFT, 0, W - LEFT - RIGHT, BAND);
    var cp = D.cp || [];
    for (var i = 0; i + 3 < cp.length; i += 4) {
      if (cp[i + 1] * D.q < t0 || cp[i] * D.q > t1) continue;
      var x0 = Math.max(LEFT, X(cp[i])), x1 = Math.min(W - RIGHT, X(cp[i + 1]));
      ctx.fillStyle = D.colours[D.cpState[cp[i + 3]]];
      ctx.fillRect(x0, 1, Math.max(1, x1 - x0), BAND - 2);
    }
    ctx.fillStyle = '#333'; ctx.textAlign = 'right';
    ctx.fillText('critical path', LEFT - 6, BAND / 2);
    var every = Math.ceil(11 / h);
    for (var k = 0; k < rows.length; k++) {
      var row = rows[k], y = TOP + k * h, n = row.hi - row.lo;
      ctx.fillStyle = D.colours[IDLE]; ctx.fillRect(LEFT, y, W - LEFT - RIGHT, h - (h > 4 ? 1 : 0));
      if (n === 1) drawRank(row.lo, y, h - (h > 4 ? 1 : 0));
      else drawBins(groupCounts(row.lo, row.hi), n, y, h - (h > 4 ? 1 : 0));
      if (k % every === 0) { ctx.fillStyle = '#333'; ctx.fillText(label(row), LEFT - 6, y + h / 2); }
    }
    // markers: balancing steps, host events
    var ev = D.events || [];
    for (i = 0; i < ev.length; i++) {
      var ex = LEFT + (W - LEFT - RIGHT) * (ev[i][0] - t0) / (t1 - t0);
      if (ex < LEFT || ex > W - RIGHT) continue;
      ctx.strokeStyle = ev[i][2] || '#222'; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(ex, BAND); ctx.lineTo(ex, TOP + rows.length * h); ctx.stroke();
      ctx.setLineDash([]);
    }
    // time axis
    var ya = TOP + rows.length * h + 2, st = niceStep(t1 - t0);
    ctx.strokeStyle = '#444'; ctx.beginPath(); ctx.moveTo(LEFT, ya); ctx.lineTo(W - RIGHT, ya); ctx.stroke();
    ctx.fillStyle = '#333'; ctx.textAlign = 'center';
    for (var t = Math.ceil(t0 / st) * st; t <= t1 + st * 1e-9; t += st) {
      var x = LEFT + (W - LEFT - RIGHT) * (t - t0) / (t1 - t0);
      ctx.beginPath(); ctx.moveTo(x, ya); ctx.lineTo(x, ya + 4); ctx.stroke();
      ctx.fillText(fmt(t), x, ya + 12);
    }
    document.getElementById('timeline-range').textContent = fmt(t0) + ' - ' + fmt(t1) + ', ' + rows.length + ' rows';
    cv.setAttribute('data-rows', rows.length);
    cv.setAttribute('data-drawn', '1');
  }
  function rowAt(y) { var k = Math.floor((y - TOP) / rowH()); return k >= 0 && k < rows.length ? k : -1; }
  function where(ev) { var b = cv.getBoundingClientRect(); return {x: ev.clientX - b.left, y: ev.clientY - b.top}; }
  function describe(p) {
    var t = T(p.x);
    if (p.x < LEFT || p.x > W - RIGHT) return null;
    if (p.y < BAND) {
      var cp = D.cp || [], u = t / D.q;
      for (var i = 0; i + 3 < cp.length; i += 4)
        if (cp[i] <= u && u <= cp[i + 1])
          return 'critical path: ' + name(cp[i + 2]) + ', ' + D.cpNames[cp[i + 3]] + ', ' + fmt((cp[i + 1] - cp[i]) * D.q) +
                 ' (' + fmt(cp[i] * D.q) + ' - ' + fmt(cp[i + 1] * D.q) + ')';
      return null;
    }
    var k = rowAt(p.y);
    if (k < 0) return null;
    var row = rows[k];
    if (row.hi - row.lo === 1 && D.acts) {
      var a = acts(row.lo), v = t / D.q, tol = (t1 - t0) / (W - LEFT - RIGHT) / D.q;
      for (var j = 0; j < a.length; j += 5)
        if (a[j] - tol <= v && v <= a[j + 1] + tol) {
          var f = D.files && D.files[row.lo];
          return name(row.lo) + ': ' + D.kinds[a[j + 2]] + ' (' + D.labels[a[j + 4]] + '), ' +
                 fmt((a[j + 1] - a[j]) * D.q) + ', ' + fmt(a[j] * D.q) + ' - ' + fmt(a[j + 1] * D.q) +
                 (f && a[j + 3] ? ', ' + f + ':' + a[j + 3] : '');
        }
      return name(row.lo) + ': idle at ' + fmt(t);
    }
    var b = Math.min(D.nb - 1, Math.max(0, Math.floor(t / (D.T / D.nb)))), c = groupCounts(row.lo, row.hi);
    var s = (row.hi - row.lo === 1 ? name(row.lo) : (D.who || 'rank') + 's ' + row.lo + '-' + (row.hi - 1)) + ', ' + fmt(b * D.T / D.nb) + ' - ' + fmt((b + 1) * D.T / D.nb) + ':';
    for (var q = 0; q < NS; q++)
      if (c[b * NS + q]) s += ' ' + D.labels[q] + ' ' + Math.round(100 * c[b * NS + q] / (row.hi - row.lo)) + '%';
    return s + (row.hi - row.lo > 1 ? ' (click to expand)' : '');
  }
  var drag = null;
  cv.addEventListener('mousedown', function (ev) { drag = {x: where(ev).x, t0: t0, t1: t1, moved: false}; });
  window.addEventListener('mouseup', function () { setTimeout(function () { drag = null; }, 0); });
  cv.addEventListener('mousemove', function (ev) {
    var p = where(ev);
    if (drag && ev.buttons) {
      var dt = (p.x - drag.x) * (drag.t1 - drag.t0) / (W - LEFT - RIGHT);
      if (Math.abs(p.x - drag.x) > 2) drag.moved = true;
      var span = drag.t1 - drag.t0;
      t0 = Math.max(0, Math.min(D.T - span, drag.t0 - dt)); t1 = t0 + span;
      draw();
      return;
    }
    var s = describe(p);
    tip.style.display = s ? 'block' : 'none';
    if (s) { tip.textContent = s; tip.style.left = (p.x + 12) + 'px'; tip.style.top = (p.y + 12) + 'px'; }
  });
  cv.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  function zoom(f, x) {
    var c = T(x), span = Math.max((t1 - t0) * f, D.T * 1e-7);
    if (span > D.T) span = D.T;
    t0 = Math.max(0, c - (c - t0) * span / (t1 - t0)); t1 = t0 + span;
    if (t1 > D.T) { t1 = D.T; t0 = t1 - span; }
    draw();
  }
  cv.addEventListener('wheel', function (ev) { ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.25 : 0.8, where(ev).x); }, {passive: false});
  cv.addEventListener('click', function (ev) {
    if (drag && drag.moved) return;
    var p = where(ev), k = rowAt(p.y);
    if (k < 0 || p.x > W - RIGHT) return;
    var row = rows[k];
    if (ev.shiftKey) {   // collapse: back to the block this row belongs to at the top level
      reset(); draw(); return;
    }
    if (expand(k)) draw();
  });
  function expand(k) {
    var row = rows[k];
    if (!row || row.hi - row.lo < 2) return false;
    var n = row.hi - row.lo, sub = n <= 32 ? blocks(row.lo, row.hi, n) : blocks(row.lo, row.hi, 16);
    rows.splice.apply(rows, [k, 1].concat(sub));
    return true;
  }
  function btn(id, f) { var b = document.getElementById(id); if (b) b.addEventListener('click', f); }
  btn('tl-in', function () { zoom(0.5, (LEFT + W - RIGHT) / 2); });
  btn('tl-out', function () { zoom(2, (LEFT + W - RIGHT) / 2); });
  btn('tl-reset', function () { t0 = 0; t1 = D.T > 0 ? D.T : 1; reset(); draw(); });
  reset();
  // a link can open the view expanded or zoomed: #expand=K (row K), #zoom=T0,T1 (seconds)
  var m = /expand=([0-9]+)/.exec(location.hash);
  if (m) expand(+m[1]);
  m = /zoom=([0-9.e+-]+),([0-9.e+-]+)/.exec(location.hash);
  if (m && +m[2] > +m[1]) { t0 = Math.max(0, +m[1]); t1 = Math.min(D.T, +m[2]); }
  draw();
})();
