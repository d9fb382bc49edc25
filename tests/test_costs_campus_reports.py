"""What the close-up of a map (``mapdraw.take_in_marks``) no longer looks at again,
counted, never timed: growing the box to take in whole the labels it meets went over
every label it did not meet once per pass, and again after each pass that grew it (a
chain of labels across a Campus Mauriacus board took up to eight passes over some two
hundred labels); a label the box does not meet now waits beside the edge it lies
beyond and is looked at again only once that edge has moved past it.  The close-up is
the same box (``tests/test_report_map_costs.py`` compares it with the first version
on random labels)."""

from __future__ import annotations

from collections.abc import Iterator

from pbem.rules import mapdraw


class _Looked(tuple[float, float, float, float]):
    """A mark that counts how often it is taken apart (``a0, b0, a1, b1 = m``)."""

    looks = 0

    def __iter__(self) -> Iterator[float]:
        _Looked.looks += 1
        return super().__iter__()


def test_a_chain_of_labels_does_not_look_again_at_the_labels_far_away() -> None:
    box = (100.0, 100.0, 200.0, 200.0)  # edges 100 to 300
    # a chain of labels up from the box's top, the farthest first: the box takes in one a pass
    chain = [(150.0, 100.0 - 10 * (i + 1) - 1, 160.0, 100.0 - 10 * i + 1) for i in range(10)][::-1]
    far = [_Looked((1000.0 + 20 * i, 150.0, 1010.0 + 20 * i, 160.0)) for i in range(100)]  # right of the box
    _Looked.looks = 0
    found = mapdraw.take_in_marks(box, [*chain, *far], (0.0, -500.0, 2000.0, 2000.0))
    assert found == (100.0, -1.0, 200.0, 301.0)  # up to the chain's last label, the far ones left out
    assert _Looked.looks == len(far)  # each far label looked at once (it was eleven times: a pass per label taken)
