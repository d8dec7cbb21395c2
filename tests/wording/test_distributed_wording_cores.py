"""D24 (ux-review-3): a cluster run's diagnosis says when its CPU ranks outnumbered the idle cores
('Scaling efficiency 41%' read as the fabric's, while 2 ranks shared 2 busy cores)."""

from gpu_advisor.wording.distributed import shared_cores_note


def test_ranks_beyond_the_idle_cores_are_said_to_have_waited_for_one():
    note = shared_cores_note(ranks=2, cores=2, load=1.3)
    assert note.startswith("2 ranks shared 2 CPU cores, 1 of them idle at the start (load 1.3)")
    assert "scaling efficiency" in note


def test_ranks_with_an_idle_core_each_need_no_note():
    assert shared_cores_note(ranks=2, cores=16, load=1.0) == ""
    assert shared_cores_note(ranks=2, cores=2, load=0.2) == ""
