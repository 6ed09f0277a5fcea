"""Bad input ends in daydream.Error with the tools' message, not a crash."""
import gzip
import threading

import pytest

import daydream
from conftest import EXAMPLE


def test_missing_file():
    with pytest.raises(daydream.Error, match="/nonexistent.ddir: No such file"):
        daydream.load("/nonexistent.ddir")


def test_corrupt_graph(tmp_path):
    bad = tmp_path / "bad.ddir"
    bad.write_bytes(b"DDIR" + b"\x00" * 100)
    with pytest.raises(daydream.Error, match=str(bad)):
        daydream.load(str(bad))


def test_truncated_trace(tmp_path):
    data = gzip.open(EXAMPLE).read()
    cut = tmp_path / "cut.pt.trace.json"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(daydream.Error, match="cut.pt.trace.json"):
        daydream.import_trace(str(cut))


def test_not_a_trace(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(daydream.Error, match="unknown trace format|not"):
        daydream.import_trace(str(other))


def test_bad_pipelines(example):
    with pytest.raises(daydream.Error, match="unknown pass 'no-such-pass'"):
        daydream.run_passes(example, "no-such-pass")
    with pytest.raises(daydream.Error, match="factor"):
        daydream.run_passes(example, "batch-size{factor=-1}")


def test_unknown_policy(example):
    with pytest.raises(daydream.Error, match="no-such-policy"):
        daydream.simulate(example, policy="no-such-policy")


def test_nothing_to_act_on_warns(example):
    with pytest.warns(daydream.DaydreamWarning, match="nothing to"):
        daydream.run_passes(example, "activation-checkpointing{layers=^nomatch$}")


def test_threads_run_at_once(example):
    # The calls release the GIL: several threads simulate, and each gets
    # the figures one thread gets.
    want = daydream.simulate(example).to_dict()
    got = []
    threads = [threading.Thread(target=lambda: got.append(
        daydream.simulate(example).to_dict())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4
