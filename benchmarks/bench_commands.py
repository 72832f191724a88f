"""The command line at scale, as a user runs it (new processes, the README's files):

* ``relulab convert plane.json plane_shallow.json`` on the README's plane of the digits
  classifier (a shallow network of 68 million parameters, beyond the panel's 20 million)
  refuses in at most 2 s, against the start-up every command pays (Python, numpy, the
  network read). The refusal comes from a lower bound on the regions found without the
  region engine, so it holds on a first run too;
* the rough time that ``relulab convert`` states before building, against the CPU time
  the building, the check and the writing take (``--force`` on a 2-16-16-4 network of
  about 500 regions, three million parameters): within a factor of three either way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, best_time, small

ROOT = Path(__file__).resolve().parents[1]
NAN = float("nan")


def _python(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)


def _readme_refusal(folder: Path) -> Row:
    shutil.copy(ROOT / "tests" / "fixtures" / "digits-torch.onnx", folder / "net.onnx")
    shutil.copy(ROOT / "relulab" / "resources" / "examples" / "digits-rows.npz",
                folder / "digits.npz")
    done = _python("-m", "relulab", "slice", "net.onnx", "plane.json", "--plane", "0", "1", "7",
                   "--points", "digits.npz", cwd=folder)
    assert done.returncode == 0, done.stderr
    said = []

    def refuse():
        done = _python("-m", "relulab", "convert", "plane.json", "plane_shallow.json", cwd=folder)
        said.append((done.returncode, done.stderr))

    def start_up():
        _python("-c", "from relulab.io.networks import load_network; "
                "load_network('plane.json')", cwd=folder)

    ours = best_time(refuse, repeat=3)
    base = best_time(start_up, repeat=3)
    refused = all(code == 1 and err.count("\n") == 1 and "at least" in err
                  for code, err in said) and not (folder / "plane_shallow.json").exists()
    return Row("relulab convert refuses the README's plane (new process)", ours,
               "python + import + read plane.json", base, max_seconds=2.0,
               holds=refused, note="" if refused else f"said {said[-1]!r}")


def _estimate(folder: Path) -> Row:
    from relulab.commands import _plan
    from relulab.io.networks import network_to_bytes
    from relulab.model.networks.mlp import MLP
    from relulab.model.regions.activation import linear_regions
    from relulab.model.shallow.construction import convert, region_constraints

    sizes = small([2, 16, 16, 4], [2, 5, 5, 2])
    net = MLP.random(sizes, seed=0)
    regions = linear_regions(net)
    _, _, strict, _ = region_constraints(regions)
    layout = _plan.extended_layout(2, len(strict), len(regions), net.n_out, int(strict.sum()))
    points = _plan.check_points(len(regions), sum(len(r.normals) for r in regions), 2000)
    estimate = (_plan.build_seconds(layout) + _plan.verify_seconds(layout, points)
                + layout.write_seconds("npz"))

    def work():
        conv = convert(net, regions=regions)
        conv.verify()
        (folder / "s.npz").write_bytes(network_to_bytes(conv.shallow, "npz"))

    # CPU time: what the estimate states (a quiet machine's), whatever the load
    t0 = time.process_time()
    work()
    actual = time.process_time() - t0
    ratio = actual / estimate
    return Row(f"relulab convert's stated time, {'-'.join(map(str, sizes))} --force (build, "
               "check, write)", actual,
               "the time it states", estimate, holds=1 / 3 <= ratio <= 3,
               note=f"took {actual:.1f} s, stated {estimate:.1f} s ({_plan.bytes_text(layout.npz_bytes())})")


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        return [_readme_refusal(Path(tmp)), _estimate(Path(tmp))]
