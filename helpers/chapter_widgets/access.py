"""Keyboard and screen-reader access for the widgets' controls, which ipywidgets leaves out.

Every widget of the series (helpers.chapter_widgets.base.Widget) carries one `ControlAccess` (an anywidget
with no size). In the browser it finds the widget it sits in (the element of class ROOT_CLASS) and, whenever
its controls change, it

- marks every control with Lumino's `data-lm-suppress-shortcuts`, so JupyterLab (and Notebook 7) leave the
  keys to the control: the arrow keys change a dropdown's value instead of moving to another cell. Ctrl+S
  (Cmd+S) still saves from anywhere in a widget, text boxes included (whose ipywidgets view keeps every key
  to itself): the key is sent on from outside the controls, instead of opening the browser's "Save page as";
- names each control after its description (slider handles, readouts, dropdowns, text boxes and groups of
  toggle buttons are otherwise announced only as "slider", "combo box" or "button");
- makes every slider say the value its readout shows (`aria-valuetext`: "10.00", where a log slider's
  handle says its exponent, and "0.00" where floating point left 8.9e-16);
- gives every toggle button its pressed state (`aria-pressed`) and lets the arrow keys move the choice
  along a group of toggle buttons, as in a radio group, which Tab enters on its pressed button;
- makes the widget's message area and summary line (class STATUS_CLASS) status regions, so a screen reader
  reads out a problem, or what a change from the keyboard shows, when it appears;
- when the focused button is disabled by its own click (the step-through's Next at the last step), hands the
  keyboard to the slider in its row, else to another button there, where the browser would drop it on the page.
  The slider, not Back: a presenter pressing Enter once too often must not walk back through the steps. On a
  slider, Space does nothing (it scrolled the notebook away) and Page Up and Page Down scroll the page as a
  presentation clicker expects, instead of jumping the slider by a fifth of its range.

ipywidgets marks the pressed toggle button only with its CSS class `mod-active`: no public property says it in
the page, so that class is read. The same script works with ipywidgets 7 and 8.
"""

from __future__ import annotations

import anywidget

ROOT_CLASS = "spotlights-widget"
"""The class of every widget of the series, by which a ControlAccess finds the controls it looks after."""
STATUS_CLASS = "spotlights-status"
"""The class of the lines a screen reader should read out when they change (ipywidgets gives no role)."""

_ESM = f'const ROOT = ".{ROOT_CLASS}", STATUS = ".{STATUS_CLASS}";' + r"""
const CONTROLS = ".widget-dropdown, .widget-toggle-buttons, .widget-slider, .widget-text, .widget-textarea,"
    + " .widget-checkbox, .widget-radio, .widget-select";
const FOCUSABLE = "select, input, textarea, button, [role=slider], [contenteditable]";
const STEPS = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
const MARK = "data-lm-suppress-shortcuts";
const SAVE = e => (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "s";

function passSave(event) {  // window, capture phase: before a control (or the marks) can keep the key
  const root = event.isTrusted && SAVE(event) && event.target.closest && event.target.closest(ROOT);
  if (!root || !document.body.classList.contains("jp-ThemedContainer")) return;  // JupyterLab or Notebook 7
  event.preventDefault();  // not the browser's "Save page as"
  event.stopPropagation();
  const {key, code, ctrlKey, metaKey, shiftKey} = event;  // the same keys, from outside the controls
  const copy = new KeyboardEvent("keydown", {key, code, ctrlKey, metaKey, shiftKey, bubbles: true, cancelable: true});
  Object.defineProperty(copy, "keyCode", {value: event.keyCode});  // what Lumino reads the key from
  root.parentElement.dispatchEvent(copy);
}

function describe(box) {
  const label = box.querySelector(":scope > .widget-label");
  return label ? label.textContent.trim() : "";
}

function nameIt(element, name) {
  const labelled = element.id && element.closest(ROOT).querySelector(`label[for="${element.id}"]`);
  if (name && !labelled && !element.getAttribute("aria-label")) element.setAttribute("aria-label", name);
}

function fix(root) {
  root.querySelectorAll(STATUS).forEach(e => e.getAttribute("role") !== "status" && e.setAttribute("role", "status"));
  for (const box of root.querySelectorAll(CONTROLS)) {
    // Lumino checks the focused element itself first, so the mark goes on every focusable part
    [box, ...box.querySelectorAll(FOCUSABLE)].forEach(e => e.setAttribute(MARK, "true"));
    const name = describe(box);
    box.querySelectorAll("select, input[type=text], input[type=number], textarea").forEach(e => nameIt(e, name));
    const readout = box.querySelector(".widget-readout");
    const shown = readout && (readout.value !== undefined ? readout.value : readout.textContent).trim();
    box.querySelectorAll("[role=slider]").forEach(e => {
      nameIt(e, name);
      if (shown && e.getAttribute("aria-valuetext") !== shown) e.setAttribute("aria-valuetext", shown);
    });
    box.querySelectorAll(".widget-readout").forEach(e => {
      e.setAttribute("role", "textbox");
      nameIt(e, name ? `${name}: type a value` : "type a value");
    });
    if (box.classList.contains("widget-toggle-buttons")) {
      box.setAttribute("role", "group");
      nameIt(box, name);
      const buttons = Array.from(box.querySelectorAll(".widget-toggle-button"));
      const chosen = buttons.some(b => b.classList.contains("mod-active"));
      buttons.forEach(b => {
        const pressed = String(b.classList.contains("mod-active"));
        if (b.getAttribute("aria-pressed") !== pressed) b.setAttribute("aria-pressed", pressed);
        const stop = !chosen || pressed === "true" ? 0 : -1;  // Tab reaches the group on its pressed button
        if (b.tabIndex !== stop) b.tabIndex = stop;
      });
    }
  }
}

function moveChoice(event) {
  const button = event.target.closest && event.target.closest(".widget-toggle-button");
  if (!button || !(event.key in STEPS) || event.altKey || event.ctrlKey || event.metaKey) return;
  const group = Array.from(button.parentElement.querySelectorAll(".widget-toggle-button:not(:disabled)"));
  const next = group[(group.indexOf(button) + STEPS[event.key] + group.length) % group.length];
  event.preventDefault();
  next.click();
  next.focus();
}

function calmSlider(event) {  // capture phase, before a slider's own keys: Space and a clicker's Page keys
  if (!event.target.matches || !event.target.matches("[role=slider]")) return;
  if (event.key === " ") event.preventDefault();  // no slider key, and it must not scroll the notebook away
  else if (event.key === "PageUp" || event.key === "PageDown") event.stopPropagation();  // they scroll the page
}

function keepFocus(last) {  // the button last focused here was just disabled: its row keeps the keyboard
  if (!last || !last.disabled || ![document.body, last, null].includes(document.activeElement)) return;
  const row = last.parentElement;
  const other = row && (row.querySelector("[role=slider]") || row.querySelector("button:not(:disabled)"));
  if (other) other.focus();
}

function attach(root) {
  if (!window.spotlightsPassSave) window.addEventListener("keydown", window.spotlightsPassSave = passSave, true);
  fix(root);
  let last = null;  // the element last focused in this widget
  const remember = event => { last = event.target; };
  root.addEventListener("keydown", moveChoice);
  root.addEventListener("keydown", calmSlider, true);
  root.addEventListener("focusin", remember);
  const watcher = new MutationObserver(() => { fix(root); keepFocus(last); });
  watcher.observe(root, {subtree: true, childList: true, characterData: true, attributes: true,
                         attributeFilter: ["class", "id", "aria-valuenow", "aria-valuetext", "value", "disabled"]});
  return () => {
    watcher.disconnect();
    root.removeEventListener("keydown", moveChoice);
    root.removeEventListener("keydown", calmSlider, true);
    root.removeEventListener("focusin", remember);
  };
}

export default {
  render({ el }) {
    let detach = null, tries = 0;
    const find = () => {  // the view is put into the page after render returns
      const root = el.closest(ROOT);
      if (root) detach = attach(root);
      else if (tries++ < 600) requestAnimationFrame(find);
    };
    find();
    return () => detach && detach();
  },
};
"""


class ControlAccess(anywidget.AnyWidget):
    """Invisible: gives the controls of the chapter widget it sits in keyboard use and accessible names."""

    _esm = _ESM
