// evtool view: the page's only script. It sorts and filters the index
// and opens or folds a run's details. It reads the page's own attributes
// and text and writes only properties (hidden, open, textContent,
// attributes it owns): never markup, never a string from the stream as
// code. The page is whole without it.
(function () {
  'use strict';

  var table = document.getElementById('runs');
  if (table && table.tBodies.length) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var heads = table.tHead.rows[0].cells;
    var q = document.getElementById('q');
    var st = document.getElementById('st');
    var shown = document.getElementById('shown');

    var value = function (row, i) {
      var v = row.cells[i].getAttribute('data-v');
      return v === null ? '' : v;
    };

    Array.prototype.forEach.call(heads, function (th, i) {
      var button = th.querySelector('button');
      if (!button) {
        return;
      }
      button.addEventListener('click', function () {
        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        Array.prototype.forEach.call(heads, function (o) {
          o.removeAttribute('aria-sort');
        });
        th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
        var num = th.getAttribute('data-type') === 'num';
        rows.sort(function (a, b) {
          var x = value(a, i);
          var y = value(b, i);
          // What a run does not state sorts last, whichever the order.
          if (x === '' || y === '') {
            return (x === '') - (y === '');
          }
          if (num) {
            return dir * (Number(x) - Number(y));
          }
          return dir * x.localeCompare(y);
        });
        rows.forEach(function (r) {
          body.appendChild(r);
        });
      });
    });

    var filter = function () {
      var words = q ? q.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
      var status = st ? st.value : '';
      var n = 0;
      rows.forEach(function (r) {
        var text = r.textContent.toLowerCase();
        var ok = (status === '' || r.getAttribute('data-status') === status) &&
          words.every(function (w) { return text.indexOf(w) >= 0; });
        r.hidden = !ok;
        if (ok) {
          n++;
        }
      });
      if (shown) {
        shown.textContent = n === rows.length ? rows.length + ' runs' : n + ' of ' + rows.length + ' runs';
      }
    };
    if (q) {
      q.addEventListener('input', filter);
    }
    if (st) {
      st.addEventListener('change', filter);
    }
    filter();
  }

  // A long run's later turns are data blocks: JSON trees of the page's
  // own markup (see view/tree.go). They are built here with DOM methods,
  // taking only the elements and attributes below, when they come into
  // view or when an address inside them is followed.
  var TAGS = {};
  ('section div span p pre code b strong em del ul ol li details summary blockquote ' +
    'table thead tbody tr th td hr br a h2 h3 h4 h5 h6 footer').split(' ').forEach(function (t) {
    TAGS[t] = true;
  });
  var build = function (n) {
    if (typeof n === 'string') {
      return document.createTextNode(n);
    }
    if (!Array.isArray(n) || !TAGS[n[0]]) {
      return document.createTextNode('');
    }
    var el = document.createElement(n[0]);
    var a = n[1] || {};
    Object.keys(a).forEach(function (k) {
      var v = String(a[k]);
      if (k === 'class' || k === 'id' || k === 'open' || k === 'start' || /^data-[a-z-]+$/.test(k) ||
          (k === 'href' && /^#[A-Za-z0-9_-]+$/.test(v))) {
        el.setAttribute(k, v);
      }
    });
    for (var i = 2; i < n.length; i++) {
      el.appendChild(build(n[i]));
    }
    return el;
  };
  // unpack turns a slot's data (base64 of gzip) into its JSON text.
  var unpack = function (b64) {
    var bin = atob(b64.replace(/\s+/g, ''));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) {
      bytes[i] = bin.charCodeAt(i);
    }
    var s = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(s).text();
  };
  // A slot's data, unpacked once: a promise of its JSON text.
  var unpacked = function (slot) {
    if (!slot.unpacked) {
      var data = slot.querySelector('script[type="application/x-evtool-turns"]');
      slot.unpacked = unpack(data.textContent);
    }
    return slot.unpacked;
  };
  // apply builds a slot's nodes and puts them in its place.
  var apply = function (slot, json) {
    if (slot.hasAttribute('data-done')) {
      return;
    }
    var frag = document.createDocumentFragment();
    JSON.parse(json).forEach(function (n) {
      frag.appendChild(build(n));
    });
    slot.textContent = '';
    slot.appendChild(frag);
    slot.setAttribute('data-done', '');
    slot.style.minHeight = '';
  };
  var usable = function (slot) {
    if (typeof DecompressionStream === 'undefined' || !slot.querySelector('script[type="application/x-evtool-turns"]')) {
      slot.firstChild.textContent = 'This browser cannot unpack this part of the run (it has no DecompressionStream).';
      return false;
    }
    return true;
  };
  var fill = function (slot) {
    if (slot.hasAttribute('data-done') || !usable(slot)) {
      return Promise.resolve();
    }
    return unpacked(slot).then(function (json) {
      apply(slot, json);
    });
  };
  // fillAll unpacks every slot at once, then builds them all in one go:
  // the page lays itself out once, not once per slot.
  var fillAll = function (list) {
    list = list.filter(function (s) {
      return !s.hasAttribute('data-done') && usable(s);
    });
    return Promise.all(list.map(unpacked)).then(function (jsons) {
      list.forEach(function (s, i) {
        apply(s, jsons[i]);
      });
    });
  };
  var slots = Array.prototype.slice.call(document.querySelectorAll('.slot'));
  slots.forEach(function (s) {
    var b = s.closest('.run') && s.closest('.run').querySelector('button[data-act=all]');
    if (b) {
      b.hidden = false;
    }
  });
  if (slots.length) {
    // A placeholder as tall as its markup will be, about, so that the
    // scroll bar spans the whole run.
    slots.forEach(function (s) {
      s.style.minHeight = Math.round(Number(s.getAttribute('data-bytes')) / 12) + 'px';
    });
    if ('IntersectionObserver' in window) {
      var io = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting) {
            io.unobserve(e.target);
            fill(e.target);
          }
        });
      }, {rootMargin: '2000px 0px'});
      slots.forEach(function (s) {
        io.observe(s);
      });
    } else {
      fillAll(slots);
    }
  }

  // Follow an address: on a page of many runs, show the run it is in
  // (CSS :target does it without the script, but cannot for a turn built
  // later); build the data block that holds a turn or a tool call.
  var reveal = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var m = /^(run-[0-9]+)(?:-([tc])([0-9]+))?$/.exec(id);
    var run = m ? document.getElementById(m[1]) : null;
    document.querySelectorAll('.many .run').forEach(function (r) {
      r.classList.toggle('shown', r === run);
    });
    if (!run || !m[2] || document.getElementById(id)) {
      return;
    }
    var n = Number(m[3]);
    var work = [];
    run.querySelectorAll('.slot').forEach(function (s) {
      var lo = Number(s.getAttribute(m[2] === 't' ? 'data-from' : 'data-cmin'));
      var hi = Number(s.getAttribute(m[2] === 't' ? 'data-to' : 'data-cmax'));
      if (lo <= n && n <= hi) {
        work.push(fill(s));
      }
    });
    Promise.all(work).then(function () {
      var el = document.getElementById(id);
      if (el) {
        el.scrollIntoView();
      }
    });
  };
  window.addEventListener('hashchange', reveal);
  reveal();

  // The run's buttons: build every turn, open or fold every detail.
  document.addEventListener('click', function (e) {
    var t = e.target;
    if (!(t instanceof HTMLButtonElement)) {
      return;
    }
    var act = t.getAttribute('data-act');
    var run = t.closest('.run');
    if (!run || (act !== 'all' && act !== 'open' && act !== 'close')) {
      return;
    }
    if (act === 'all') {
      t.disabled = true;
      fillAll(Array.prototype.slice.call(run.querySelectorAll('.slot'))).then(function () {
        t.hidden = true;
      });
      return;
    }
    run.querySelectorAll('details').forEach(function (d) {
      d.open = act === 'open';
    });
  });
})();
