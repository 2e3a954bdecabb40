// A module-federation container with no modules of its own, written by hand (nothing to build). JupyterLab, and
// jupyterlab-rise's slide app, call init() with the page's shared modules before any extension is loaded. RISE's
// app does not share @jupyterlab/console, so JupyterLab's widget manager (@jupyter-widgets/jupyterlab-manager)
// fails to load there and every widget shows as text. Where it is missing, this shares a stand-in that holds only
// the token IConsoleTracker, which the widget manager asks for as optional (no console in a slide show provides
// it). Where JupyterLab shares the real module (JupyterLab, Notebook 7) it does nothing.
(window._JUPYTERLAB = window._JUPYTERLAB || {})["several-spotlights-rise"] = {
  get: module => Promise.reject(new Error(`several-spotlights-rise has no module ${module}`)),
  init: scope => {
    const lumino = scope["@lumino/coreutils"];
    if (scope["@jupyterlab/console"] || !lumino) return;
    const newest = Object.keys(lumino).sort((a, b) => a.localeCompare(b, undefined, {numeric: true})).pop();
    scope["@jupyterlab/console"] = {
      "4.0.0": {
        from: "several-spotlights-rise",
        eager: false,
        get: () => lumino[newest].get().then(factory => {
          const {Token} = factory();
          const tracker = new Token("@jupyterlab/console:IConsoleTracker", "A console tracker (none in a slide show).");
          return () => ({IConsoleTracker: tracker});
        }),
      },
    };
  },
};
