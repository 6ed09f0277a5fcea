"""The same figures from Python as from the command line."""
import glob
import json
import os
import subprocess
import warnings

import pytest

import daydream
from conftest import EXAMPLE, SHARED, TOOLS, cli_report, tool, traces

# What differs by design: the input's name, and who made the prediction.
NOT_COMPARED = ("input", "pipelines")


def comparable(report):
    return {k: v for k, v in report.items() if k not in NOT_COMPARED}


@pytest.mark.parametrize("trace", traces())
def test_replay_matches_dd_sim(trace, tmp_path):
    py = daydream.simulate(daydream.import_trace(trace)).to_dict()
    assert comparable(py) == comparable(cli_report(trace, tmp_path))


@pytest.mark.parametrize("pipeline", ["amp", "kernel-fusion",
                                      "cuda-graphs{phase=forward}",
                                      "batch-size{factor=2}"])
def test_what_if_matches_dd_opt_and_dd_sim(pipeline, tmp_path):
    g = daydream.import_trace(EXAMPLE)
    with warnings.catch_warnings():
        # amp warns that the example's GPU is not in the table; dd-opt
        # warns the same.
        warnings.simplefilter("ignore", daydream.DaydreamWarning)
        r = daydream.simulate(daydream.run_passes(g, pipeline))
    cli = cli_report(EXAMPLE, tmp_path, pipeline)
    assert r.is_prediction and cli["prediction"]
    assert comparable(r.to_dict()) == comparable(cli)
    assert r.speedup == cli["speedup"]
    assert r.to_dict()["pipelines"][0]["pipeline"] == \
        cli["pipelines"][0]["pipeline"]


@pytest.mark.parametrize("printer,function", [
    ("print<critical-path>", daydream.critical_path),
    ("print<utilization>", daydream.utilization),
    ("print<memory>", daydream.memory),
])
def test_printers_match_dd_opt(printer, function, example, tmp_path):
    ddir = str(tmp_path / "g.ddir")
    example.save(ddir)
    cli = json.loads(tool("dd-opt", "-passes=%s{json=true}" % printer, ddir,
                          "-disable-output"))
    assert function(example) == cli


def test_job_refused_as_dd_import_refuses_it(tmp_path):
    with pytest.raises(daydream.Error) as err:
        daydream.import_trace([EXAMPLE, EXAMPLE])
    proc = subprocess.run([os.path.join(TOOLS, "dd-import"), "-q", EXAMPLE,
                           EXAMPLE, "-o", str(tmp_path / "j.ddir")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert str(err.value) in proc.stderr


@pytest.mark.skipif(not SHARED, reason="../shared/traces is not here")
def test_job_of_eight_ranks_matches_dd_import(tmp_path):
    ranks = sorted(glob.glob(os.path.join(SHARED, "kineto", "dlrm_8rank_v100",
                                          "rank*.json.gz")))
    job = daydream.import_trace(ranks)
    ddir = str(tmp_path / "job.ddir")
    tool("dd-import", "-q", *ranks, "-o", ddir)
    cli = json.loads(tool("dd-sim", "-report=json", ddir))
    assert comparable(daydream.simulate(job).to_dict()) == comparable(cli)
    # Each rank's lanes, and the job's own (rank -1: its barriers).
    assert {lane["rank"] for lane in job.lanes()} - {-1} == set(range(8))


def test_split_job_loads_as_one_file(tmp_path):
    """A job split over files (dd-import -split) loads as the whole job."""
    tool("dd-synth", "-q", "-ranks=2", "-tasks=4000", "-o", str(tmp_path / "t.json"))
    ranks = [str(tmp_path / f"t.rank{r}.json") for r in range(2)]
    tool("dd-import", "-q", *ranks, "-o", str(tmp_path / "one.ddir"))
    tool("dd-import", "-q", "-split", *ranks, "-o", str(tmp_path / "job.ddjob"))
    one = daydream.load(str(tmp_path / "one.ddir"))
    job = daydream.load(str(tmp_path / "job.ddjob"))
    assert job.num_tasks == one.num_tasks
    assert comparable(daydream.simulate(job).to_dict()) == \
        comparable(daydream.simulate(one).to_dict())
