// The series' one way of drawing a live view: plain data from the kernel (numbers, words, titles, sizes) drawn
// here as SVG. Panels are heatmaps (rows: the word that looks, columns: the word looked at; null = masked)
// or bars (one or more series). Every cell and bar has a tooltip at the figure's font size; a heatmap is
// reached with Tab, its cells with the arrow keys (read out through a live region), Enter picks a row.
// anywidget renders it live (model: the widget); a static page renders it with a stand-in model.
const NS = "http://www.w3.org/2000/svg";

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}

function percent(v) {
  return `${(Math.round(v * 1000) / 10).toFixed(1)}%`;  // 8.9e-16 reads "0.0%", never in exponent form
}

function number(v, format) {
  if (format === "percent") return percent(v);
  const r = Math.round(v * 1000) / 1000;
  return (Object.is(r, -0) ? 0 : r).toFixed(3);
}

function colour(scale, t) {
  t = Math.min(1, Math.max(0, t));
  for (let i = 1; i < scale.length; i++) {
    if (t <= scale[i][0]) {
      const [t0, c0] = scale[i - 1], [t1, c1] = scale[i];
      const f = (t - t0) / (t1 - t0 || 1), a = parseInt(c0.slice(1), 16), b = parseInt(c1.slice(1), 16);
      const mix = s => Math.round(((a >> s) & 255) * (1 - f) + ((b >> s) & 255) * f);
      return `rgb(${mix(16)},${mix(8)},${mix(0)})`;
    }
  }
  return scale[scale.length - 1][1];
}

function text(x, y, body, size, extra = "") {
  return `<text x="${x}" y="${y}" font-size="${size}" ${extra}>${esc(body)}</text>`;
}

function layout(spec) {
  const font = spec.font, panels = spec.panels, cols = Math.min(spec.cols || 1, panels.length);
  const rows = Math.ceil(panels.length / cols);
  const tick = Math.max(...panels.map(p => p.tick || font));
  const longest = key => Math.max(1, ...panels.flatMap(p => (p[key] || []).map(w => String(w).length)));
  const yWords = panels.some(p => p.type === "heatmap");
  const left = font * 1.6 + (yWords ? longest("y") * tick * 0.6 : font * 3) + 8;
  const bottom = 6 + longest("x") * tick * 0.43 + tick * 0.5 + font * 1.4;
  const top = font * (spec.subtitle ? 3.2 : 2) + (spec.legend ? font * 1.6 : 0) + (panels.some(p => p.title) ? font * 1.5 : 0);
  const right = (spec.scale ? font * 4.5 : font) + 4;
  const gapX = font * 1.2, gapY = font * 2.3;  // a row's panel titles clear of the zero line above them
  const plotW = (spec.width - left - right - (cols - 1) * gapX) / cols;
  const plotH = (spec.height - top - bottom - (rows - 1) * gapY) / rows;
  return {font, cols, rows, tick, left, top, plotW, plotH, gapX, gapY, bottom};
}

// every k-th word; a focus word always, then each word in `keep` that would not touch one already kept, and the
// every-k-th words that would not touch a kept one (touch: closer than k, the spacing at which labels fit)
function axisWords(words, every, focus, keep) {
  const k = every || 1, always = [];
  for (const i of [focus, ...(keep || [])]) if (i != null && !always.some(j => Math.abs(i - j) < k)) always.push(i);
  const near = i => always.some(j => i !== j && Math.abs(i - j) < k);
  return words.map((w, i) => (always.includes(i) || (i % k === 0 && !near(i)) ? w : null));
}

// a panel's column labels, slanted under its columns (each `slot` px wide) at height y: the words axisWords keeps,
// those in `keep` in bold (a lone mark, a comma say, half as large again: in bold alone it is a speck); `attrs` adds
// attributes to each label
function xLabels(p, focus, x0, slot, y, size, attrs) {
  return axisWords(p.x, p.every, focus, p.keep).map((word, c) => {
    if (word === null) return "";
    const x = x0 + (c + 0.5) * slot, kept = (p.keep || []).includes(c), most = kept ? '" font-weight="bold' : "";
    const body = kept && !/[\p{L}\p{N}]/u.test(word) ? `<tspan font-size="${size * 1.5}">${esc(word)}</tspan>` : esc(word);
    return `<text x="${x}" y="${y}" font-size="${size}" class="x-label${most}"${attrs} text-anchor="end" `
      + `transform="rotate(-45 ${x} ${y})">${body}</text>`;
  }).join("");
}

function heatmap(p, k, x0, y0, w, h, L, spec) {
  const n = p.x.length, cw = w / Math.max(n, 1), ch = h / Math.max(p.y.length, 1);
  let out = `<g class="panel heatmap" data-panel="${k}" tabindex="0" role="img" data-lm-suppress-shortcuts="true"`
    + ` aria-label="${esc(`${p.title || spec.title}: ${p.ytitle} down, ${p.xtitle} across. Arrow keys read the `
    + `cells${spec.picks_rows ? ", Enter focuses on a row" : ""}.`)}">`;
  p.z.forEach((row, r) => row.forEach((v, c) => {
    const fill = v === null ? spec.masked : colour(spec.colours, v / (spec.zmax || 1));
    out += `<rect x="${x0 + c * cw}" y="${y0 + r * ch}" width="${cw + 0.3}" height="${ch + 0.3}" fill="${fill}"`
      + ` data-panel="${k}" data-r="${r}" data-c="${c}"/>`;
  }));
  out += `<rect class="cursor" x="0" y="0" width="${cw}" height="${ch}" fill="none" stroke="#d55e00"`
    + ` stroke-width="3" visibility="hidden" pointer-events="none"/></g>`;
  if (p.show_y !== false) axisWords(p.y, p.every, p.focus).forEach((word, r) => {
    const cls = r === p.focus ? 'y-label focus" font-weight="bold' : "y-label";
    if (word !== null) out += text(x0 - 6, y0 + (r + 0.5) * ch, word, p.tick, `class="${cls}" text-anchor="end" dominant-baseline="middle"`);
  });
  if (p.show_x !== false) out += xLabels(p, null, x0, cw, y0 + h + 6, p.tick, ` data-panel="${k}"`);
  return out;
}

function bars(p, k, x0, y0, w, h, L, spec) {
  const n = p.x.length, series = p.series, slot = w / Math.max(n, 1), bw = slot * 0.8 / series.length;
  const top = p.ymax || Math.max(1e-9, ...series.flatMap(s => s.y)) * 1.15;
  const y = v => y0 + h - (Math.max(0, v) / top) * h;
  let out = `<g class="panel bars" data-panel="${k}">`;
  for (const t of p.ticks || []) {
    out += `<line x1="${x0}" x2="${x0 + w}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`
      + text(x0 - 6, y(t), p.format === "percent" ? `${Math.round(t * 100)}%` : t, L.tick, 'text-anchor="end" dominant-baseline="middle"');
  }
  series.forEach((s, j) => s.y.forEach((v, c) => {
    const x = x0 + c * slot + slot * 0.1 + j * bw;
    out += `<rect x="${x}" y="${y(v)}" width="${bw}" height="${y0 + h - y(v)}" fill="${s.colour}" data-panel="${k}"`
      + ` data-s="${j}" data-c="${c}"/>`;
    if (p.labels) out += text(x + bw / 2, y(v) - 4, number(v, p.format), L.tick, 'class="value" text-anchor="middle"');
  }));
  out += `<line x1="${x0}" x2="${x0 + w}" y1="${y0 + h}" y2="${y0 + h}" stroke="#444"/>`;
  if (p.show_x !== false) out += xLabels(p, p.focus, x0, slot, y0 + h + 6, p.tick || L.tick, "");
  return out + "</g>";
}

function svg(spec) {
  const L = layout(spec), font = spec.font;
  let out = text(8, font * 1.3, spec.title, font + 4, 'class="title" font-weight="600"');
  if (spec.subtitle) out += text(8, font * 2.7, spec.subtitle, font, 'class="subtitle" fill="#444"');
  if (spec.legend) {
    let x = L.left, y = font * (spec.subtitle ? 4.2 : 3);
    for (const s of spec.panels[0].series) {
      out += `<rect x="${x}" y="${y - font * 0.8}" width="${font}" height="${font}" fill="${s.colour}"/>`
        + text(x + font * 1.3, y, s.name, font);
      x += font * (2.2 + 0.6 * s.name.length);
    }
  }
  spec.panels.forEach((p, k) => {
    const c = k % L.cols, r = Math.floor(k / L.cols);
    const x0 = L.left + c * (L.plotW + L.gapX), y0 = L.top + r * (L.plotH + L.gapY);
    if (p.title) out += text(x0 + L.plotW / 2, y0 - font * 0.5, p.title, font, 'class="panel-title" text-anchor="middle"');
    out += (p.type === "heatmap" ? heatmap : bars)(p, k, x0, y0, L.plotW, L.plotH, L, spec);
  });
  const first = spec.panels[0], plotsH = L.rows * L.plotH + (L.rows - 1) * L.gapY;
  if (first.ytitle) {
    const x = font * 1.1, y = L.top + plotsH / 2;
    out += text(x, y, first.ytitle, font, `class="axis-title" text-anchor="middle" transform="rotate(-90 ${x} ${y})"`);
  }
  const xtitle = spec.panels[spec.panels.length - 1].xtitle;
  if (xtitle) out += text(L.left + (spec.width - L.left) / 2 - font, spec.height - font * 0.4, xtitle, font, 'class="axis-title" text-anchor="middle"');
  if (spec.scale) {
    const x = spec.width - font * 4, h = Math.min(plotsH, 240), id = `g${Math.random().toString(36).slice(2)}`;
    const size = Math.max(L.tick, font * 0.8);  // the bar's labels have room to stay readable when the words shrink
    out += `<defs><linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">`
      + spec.colours.map(([t, c]) => `<stop offset="${t}" stop-color="${c}"/>`).join("") + "</linearGradient></defs>"
      + text(x, L.top - size, spec.scale, size) + `<rect x="${x}" y="${L.top}" width="${font}" height="${h}" fill="url(#${id})"/>`
      + [0, 0.5, 1].map(t => text(x + font * 1.3, L.top + h * (1 - t), percent(t * (spec.zmax || 1)).replace(".0%", "%"), size, 'dominant-baseline="middle"')).join("");
  }
  return `<svg xmlns="${NS}" viewBox="0 0 ${spec.width} ${spec.height}" width="${spec.width}" `
    + `style="max-width: 100%; height: auto; font-family: sans-serif" role="group" aria-label="${esc(spec.title)}">${out}</svg>`;
}

function describe(spec, k, r, c, s) {
  const p = spec.panels[k];
  if (p.type === "heatmap") {
    const v = p.z[r][c], names = p.names || p.y;
    const head = spec.panels.length > 1 && p.title ? `${p.title}: ` : "";
    return head + (v === null ? `masked: ${names[r]} cannot see the later word ${names[c]}`
      : `${names[r]} looks at ${names[c]}: ${percent(v)}`);
  }
  const series = p.series[s];
  return `${p.series.length > 1 ? `${series.name}, ` : ""}${p.x[c]}: ${number(series.y[c], p.format)}`;
}

function render({ model, el }) {
  el.classList.add("spotlights-drawing");
  const box = document.createElement("div"), tip = document.createElement("div"), said = document.createElement("div");
  box.style.position = "relative";
  tip.className = "spotlights-tooltip";
  said.setAttribute("aria-live", "polite");
  said.className = "spotlights-said";
  el.append(box, said);
  let spec = null, cursor = null, pointing = false, clicked = null;  // clicked: where the arrow keys go on from
  const draw = () => {
    const figure = model.get("figure");
    if (!figure || !figure.panels) return;
    spec = {...figure, picks_rows: model.get("picks_rows") === true};  // Enter's words only where it picks a row
    const active = document.activeElement, focused = box.contains(active) && active.closest("g.panel");
    const kept = focused && cursor ? cursor : null;  // a keyboard user's place
    cursor = null;
    said.textContent = "";  // what it said described the figure before
    box.innerHTML = (spec.above || "") + svg(spec) + (spec.caption ? `<p class="caption" style="font-size: `
      + `${spec.font}px; max-width: ${spec.caption_width}px">${esc(spec.caption)}</p>` : "") + (spec.below || "");
    box.append(tip);
    tip.style.cssText = `display: none; font-size: ${spec.font}px`;
    const group = focused && box.querySelector(`g.panel[data-panel="${focused.dataset.panel}"]`);
    if (group) {  // the redraw (a row picked by a click or Enter) keeps the keyboard in the heatmap
      pointing = !kept;  // after a click: no cursor until a key is pressed
      cursor = kept;
      group.focus({preventScroll: true});
      if (kept) show(kept.k, kept.r, kept.c, false);  // after Enter: on the same cell, the summary speaks
    }
  };
  const place = (target, body) => {
    const outer = box.getBoundingClientRect(), r = target.getBoundingClientRect();
    tip.textContent = body;
    tip.style.display = "block";
    const left = Math.min(r.left - outer.left + r.width + 8, Math.max(0, outer.width - tip.offsetWidth));
    tip.style.left = `${left}px`;
    tip.style.top = `${Math.max(0, r.top - outer.top - tip.offsetHeight - 4)}px`;
  };
  const show = (k, r, c, speak = true) => {
    const p = spec && spec.panels[k];
    if (!p || p.type !== "heatmap" || !p.z[r] || p.z[r][c] === undefined) { cursor = null; return; }
    cursor = {k, r, c};
    const group = box.querySelector(`g.panel[data-panel="${k}"]`), cell = group.querySelector(`rect[data-r="${r}"][data-c="${c}"]`);
    const mark = group.querySelector(".cursor");
    ["x", "y", "width", "height"].forEach(a => mark.setAttribute(a, cell.getAttribute(a)));
    mark.setAttribute("visibility", "visible");
    const text = describe(spec, k, r, c);
    if (speak) said.textContent = text;  // one live region at a time: a redraw's own status line is read out
    place(cell, text);
  };
  box.addEventListener("pointermove", event => {
    const d = event.target.dataset || {};
    if (d.c === undefined || !spec) { tip.style.display = "none"; return; }
    place(event.target, describe(spec, +d.panel, +d.r, +d.c, +(d.s || 0)));
  });
  box.addEventListener("pointerleave", () => { tip.style.display = "none"; });
  box.addEventListener("pointerdown", () => { pointing = true; });  // a click focuses a panel: no keyboard cursor
  box.addEventListener("click", event => {
    const d = event.target.dataset || {};
    if (d.r === undefined) return;
    clicked = {k: +d.panel, r: +d.r, c: +d.c};
    model.send({event: "click", row: +d.r, column: +d.c});
  });
  box.addEventListener("keydown", event => {
    const group = event.target.closest && event.target.closest("g.panel.heatmap");
    pointing = false;
    if (!group || !spec) return;
    const k = +group.dataset.panel, p = spec.panels[k];
    const at = cursor && cursor.k === k ? cursor : clicked && clicked.k === k ? clicked : {r: p.focus || 0, c: 0};
    const moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
    if (event.key in moves) {
      const [dr, dc] = moves[event.key];
      show(k, Math.min(p.z.length - 1, Math.max(0, at.r + dr)), Math.min(p.x.length - 1, Math.max(0, at.c + dc)));
    } else if ((event.key === "Enter" || event.key === " ") && spec.picks_rows) {  // else the page keeps the key
      model.send({event: "click", row: at.r, column: at.c});
    } else return;
    event.preventDefault();
    event.stopPropagation();
  });
  box.addEventListener("focusin", event => {
    const group = event.target.closest && event.target.closest("g.panel.heatmap");
    const k = group && +group.dataset.panel;  // the keyboard comes in on the focus row
    if (group && !pointing && !(cursor && cursor.k === k)) {
      clicked = null;
      show(k, spec.panels[k].focus || 0, 0);
    }
    pointing = false;
  });
  box.addEventListener("focusout", () => {
    tip.style.display = "none";
    said.textContent = "";
    cursor = null;
    box.querySelectorAll(".cursor").forEach(mark => mark.setAttribute("visibility", "hidden"));
  });
  model.on("change:figure", draw);
  draw();
  return () => model.off("change:figure", draw);
}

export default { render };
