"""The board (data file): every city the rulebook names and the other towns of the
war, at their real latitude/longitude, with VP, colour groups, ports and path lines,
agreeing with the rulebook's facts."""

import tomllib
from pathlib import Path

import pytest

from pbem.rules.farrapos.board import BoardError, board_from_data, load_board

RULEBOOK_CITIES = ["porto-alegre", "rio-grande", "lages", "triunfo", "pelotas", "bage", "piratini", "rio-pardo"]
DATA = Path(__file__).resolve().parent.parent / "rules" / "farrapos" / "data" / "board.toml"


def test_board_has_every_city_the_rulebook_names():
    board = load_board()
    for city in RULEBOOK_CITIES:
        assert city in board.cities


def test_board_cities_sit_at_real_latitude_and_longitude_in_rio_grande_do_sul_and_santa_catarina():
    board = load_board()
    assert len(board.cities) >= 25
    for city in board.cities.values():
        assert -34.0 < city.lat < -26.0 and -58.0 < city.lon < -48.0, city
    assert (board.cities["porto-alegre"].lat, board.cities["porto-alegre"].lon) == (-30.03, -51.21)
    assert board.cities["lages"].lat > board.cities["porto-alegre"].lat  # Lages is to the north


def test_battles_example_porto_alegre_is_worth_4_vp():
    assert load_board().cities["porto-alegre"].vp == 4


def test_turn_sequence_attack_example_republic_cities_link_to_porto_alegre_or_rio_grande():
    board = load_board()
    assert board.linked("triunfo", "porto-alegre")
    assert board.linked("pelotas", "rio-grande")


def test_turn_sequence_invasion_example_republic_cities_link_to_piratini_or_rio_pardo():
    board = load_board()
    assert board.linked("pelotas", "piratini") or board.linked("bage", "piratini")
    assert board.linked("triunfo", "rio-pardo")


def test_board_path_lines_connect_every_city():
    board = load_board()
    assert set(board.distances_from("porto-alegre")) == set(board.cities)


def test_board_colour_groups_and_ports_each_have_a_bonus():
    board = load_board()
    assert all(g.bonus > 0 and len(g.cities) >= 2 for g in board.colours.values())
    assert set(board.ports) >= {"porto-alegre", "rio-grande", "pelotas", "laguna"}
    assert board.port_bonus > 0


def test_board_data_file_is_what_the_code_reads_so_a_referee_can_correct_it():
    with DATA.open("rb") as f:
        data = tomllib.load(f)
    data["cities"]["porto-alegre"]["vp"] = 5
    assert board_from_data(data).cities["porto-alegre"].vp == 5


def test_board_data_with_a_path_line_to_an_unknown_city_is_refused():
    with DATA.open("rb") as f:
        data = tomllib.load(f)
    data["links"]["paths"].append(["porto-alegre", "montevideo"])
    with pytest.raises(BoardError, match="montevideo"):
        board_from_data(data)
