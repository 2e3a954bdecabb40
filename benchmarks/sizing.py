"""Sizing a class from the classroom benchmark: per-learner CPU and memory, what 10, 30 and 100 learners need.

    python -m benchmarks.sizing    # rewrite deploy/config.yaml from assets/classroom.json (a test compares the two)

The assumptions are stated with the numbers, in the guide (`markdown`) and in the config (`z2jh_config`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from benchmarks.measure import markdown_table
from tools.chapters import CHAPTERS, ROOT

RESULTS = ROOT / "assets" / "classroom.json"
DEPLOY_CONFIG = ROOT / "deploy" / "config.yaml"
CHAPTER_TARGET_S = 90
CELL_TARGET_S = 30
CLASS_SIZES = (10, 30, 100)
OPEN_CHAPTERS = 3  # the guide asks learners to keep at most this many chapters open
CULL_IDLE_S = 3600
CULL_EVERY_S = 300


def run_figures(run: dict) -> dict:
    chapters = [c for s in run["students"] for c in s["chapters"]]
    slowest = max(chapters, key=lambda c: c["seconds"])
    cell = max((c for c in chapters if c.get("slowest_cell")), key=lambda c: c["slowest_cell"]["seconds"], default=None)
    errors = sum(c["error"] is not None for c in chapters)
    running_s, cell_s = sum(c["seconds"] for c in chapters), cell["slowest_cell"]["seconds"] if cell else 0.0
    return {"class_size": run["class_size"], "cpu_share": run["cpu_share"], "errors": errors,
            "memory_mb": max(s["server_peak_mb"] + max((c["kernel_peak_mb"] or 0.0) for c in s["chapters"])
                             for s in run["students"]),
            "cpu_used": sum(c["cpu_s"] or 0.0 for c in chapters) / running_s if running_s else 0.0,
            "slowest_chapter": slowest["chapter"], "slowest_chapter_s": slowest["seconds"],
            "slowest_cell_chapter": cell["chapter"] if cell else None,
            "slowest_cell_index": cell["slowest_cell"]["index"] if cell else None, "slowest_cell_s": cell_s,
            "hub_mb": run["hub_peak_mb"] + run["proxy_peak_mb"], "load_average_start": run["load_average_start"][0],
            "meets": errors == 0 and slowest["seconds"] <= CHAPTER_TARGET_S and cell_s <= CELL_TARGET_S}


def learner(results: dict) -> dict:
    """What one learner needs, from every measured class size (see the module's assumptions): cpu_share is None
    when no measured share met the targets, and the guarantee is then a whole limit's worth, the most the measurement
    can justify; cpu_limit is the most CPU one kernel used, in whole cores."""
    runs = [run_figures(run) for run in results["runs"]]
    chapters = [c for run in results["runs"] for s in run["students"] for c in s["chapters"]]
    server = max(s["server_peak_mb"] for run in results["runs"] for s in run["students"])
    kernel = max((c["kernel_peak_mb"] or 0.0) for c in chapters)
    used = max(((c["cpu_s"] or 0.0) / c["seconds"] for c in chapters if c["seconds"]), default=1.0)
    share = min((run["cpu_share"] for run in runs if run["meets"]), default=None)
    limit = max(1, math.ceil(round(used, 2)))
    return {"cpu_share": share, "cpu_limit": limit, "cpu_guarantee": float(limit) if share is None else share,
            "memory_mb": math.ceil(server + kernel), "memory_limit_mb": math.ceil(server + OPEN_CHAPTERS * kernel),
            "hub_mb": math.ceil(max(run["hub_mb"] for run in runs))}


def _gb(mb: float) -> float:  # rounded up to a tenth
    return math.ceil(mb / 1024 * 10) / 10


def class_needs(students: int, each: dict) -> dict:
    cores = None if each["cpu_share"] is None else math.ceil(round(students * each["cpu_share"], 6))
    return {"cores": cores, "memory_gb": _gb(each["hub_mb"] + students * each["memory_mb"]),
            "memory_gb_open": _gb(each["hub_mb"] + students * each["memory_limit_mb"])}


def _cores(share: float) -> str:
    return f"{share:g} core" + ("" if share == 1 else "s")


def _every_chapter(results: dict) -> bool:
    return set(results["chapters"]) >= set(CHAPTERS)


def markdown(results: dict) -> str:
    start = results["machine"]
    chapters = ", ".join(name[:2] for name in results["chapters"])
    runs = [run_figures(run) for run in results["runs"]]
    each = learner(results)
    lines = [f"Measured by `{results['command'].strip()}` on {start['date_utc']} UTC: a real JupyterHub (dummy "
             f"login, one local server per student) on {start['cpus']} CPU cores; every student ran "
             f"{'every chapter' if _every_chapter(results) else 'chapters ' + chapters} "
             "top to bottom at the same moment, each chapter in a fresh kernel, through the server's kernel API "
             "as a browser does.", "",
             *markdown_table(["Students at once", "CPU each", "CPU used", "Slowest chapter", "Slowest cell",
                              "Memory each", "Errors", "Load before"], "l" * 8, [
                 [run["class_size"], _cores(run["cpu_share"]), _cores(round(run["cpu_used"], 2)),
                  f"{run['slowest_chapter_s']:.0f} s (chapter {run['slowest_chapter'][:2]})",
                  f"{run['slowest_cell_s']:.0f} s (chapter {run['slowest_cell_chapter'][:2]}, cell "
                  f"{run['slowest_cell_index']})" if run["slowest_cell_chapter"] else "none ran",
                  f"{run['memory_mb']:.0f} MB", run["errors"], f"{run['load_average_start']:g}"] for run in runs])]
    busy = any(run["load_average_start"] > start["cpus"] / 2 for run in runs)
    lines += ["", f"Targets: every chapter within {CHAPTER_TARGET_S} s and every cell within {CELL_TARGET_S} s, "
              "with no error. *CPU each* is the machine's cores shared by the students; *CPU used* is what a "
              "student's kernel used while its chapter ran (CPU seconds over wall seconds); a cell is numbered as "
              "in the notebook file, counting every cell from 0; *Memory each* is a student's server plus their "
              f"largest chapter kernel, at their peaks; the hub and its proxy took {each['hub_mb']} MB together. "
              "*Load before* is the 1-minute load average as the class started"
              + (": above half the cores, other programs shared the machine, so these times are slower than on "
                 "an idle one." if busy else ".")]
    if not _every_chapter(results):
        lines += ["", f"**Only chapters {chapters} were measured**, so the figures below "
                  "leave out the others, which may need more: run the whole grid (`python -m benchmarks.classroom`) "
                  "before sizing a real class."]
    share_text = (f"each learner needs the CPU of the most crowded measured class that still met the targets: "
                  f"{_cores(each['cpu_share'])}" if each["cpu_share"] is not None else
                  "no measured class size met the targets, so a learner needs more than "
                  f"{_cores(max(r['cpu_share'] for r in runs))} and the core counts below are unknown")
    lines += ["", f"**What a class needs.** Assumptions: every learner may run a chapter at the same moment (as when "
              f"the class is told to run all), so {share_text}; memory grows in proportion to learners: "
              f"{each['memory_mb']} MB each (a server and one chapter's kernel), {each['memory_limit_mb']} MB each "
              f"with {OPEN_CHAPTERS} chapters open, plus the hub once. A 2-core machine cannot show contention "
              "beyond its own cores (memory bandwidth, disk, the proxy under hundreds of users): treat the larger "
              "classes as a lower bound.", "",
              *markdown_table(["Class", "Cores", "Memory, one chapter open each",
                               f"Memory, {OPEN_CHAPTERS} chapters open each"], "llll",
                              [[f"{size} learners", "unknown" if need["cores"] is None else need["cores"],
                                f"{need['memory_gb']:g} GB", f"{need['memory_gb_open']:g} GB"]
                               for size in CLASS_SIZES for need in [class_needs(size, each)]])]
    lines += ["", "Per learner on a hub (written into `deploy/config.yaml` by `python -m benchmarks.sizing`): "
              f"CPU guarantee {each['cpu_guarantee']:g}, limit {each['cpu_limit']}; memory guarantee "
              f"{each['memory_mb']}M, limit {each['memory_limit_mb']}M. On The Littlest JupyterHub: "
              f"`sudo tljh-config set limits.cpu {each['cpu_limit']}`, "
              f"`sudo tljh-config set limits.memory {each['memory_limit_mb']}M` and, to stop servers idle for "
              f"{CULL_IDLE_S // 60} minutes, `sudo tljh-config set services.cull.timeout {CULL_IDLE_S}`; then "
              "`sudo tljh-config reload`."]
    return "\n".join(lines)


def z2jh_config(results: dict) -> str:
    each = learner(results)
    start = results["machine"]
    chapters = ", ".join(name[:2] for name in results["chapters"])
    met = ("the CPU share at which every measured chapter ran within "
           f"{CHAPTER_TARGET_S} s and every cell within {CELL_TARGET_S} s" if each["cpu_share"] is not None
           else "NO measured share met the targets; this is the limit")
    partial = ("" if _every_chapter(results) else
               "# PROVISIONAL: only some chapters were measured, and the others may need more memory and CPU;\n"
               "# run the whole grid (python -m benchmarks.classroom) before sizing a class with these numbers.\n")
    return f"""\
# Zero to JupyterHub (https://z2jh.jupyter.org) values for a class on Several Spotlights: deploy/README.md.
# Written by `python -m benchmarks.sizing` from assets/classroom.json; do not edit the numbers by hand.
{partial}# Measured on {start['cpus']} CPU cores on {start['date_utc']} UTC with chapters {chapters}. Per learner:
# - cpu.guarantee: {met};
# - cpu.limit: the most CPU one learner's kernel used, in whole cores;
# - memory.guarantee: the server plus one chapter's kernel, at their measured peaks;
# - memory.limit: the server plus {OPEN_CHAPTERS} chapters' kernels open at once.
singleuser:
  image:
    # built from this repository by repo2docker and pushed to your registry: deploy/install.sh sets both
    name: REGISTRY/several-spotlights
    tag: COMMIT
  # the class link opens the learner edition, which each start copies into the learner's home where missing
  defaultUrl: /lab/tree/several-spotlights/00_start_here.ipynb
  lifecycleHooks:
    postStart:
      exec:
        command: ["sh", "-c", 'python "$NB_PYTHON_PREFIX/share/several-spotlights/deliver.py"']
  startTimeout: 300
  cpu:
    guarantee: {each['cpu_guarantee']:g}
    limit: {each['cpu_limit']}
  memory:
    guarantee: {each['memory_mb']}M
    limit: {each['memory_limit_mb']}M
cull:
  # stop a server after {CULL_IDLE_S // 60} minutes without activity, checking every {CULL_EVERY_S // 60} minutes
  enabled: true
  timeout: {CULL_IDLE_S}
  every: {CULL_EVERY_S}
"""


def write_deploy_config(results: dict) -> Path:
    DEPLOY_CONFIG.write_text(z2jh_config(results))
    return DEPLOY_CONFIG


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # only --help
    print(f"wrote {write_deploy_config(json.loads(RESULTS.read_text()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
