"""A small graph whose answers are known: five documents, their entities and typed relations."""

from __future__ import annotations

DOCS = {
    "acme.md": "Acme Corp buys steel from Borealis Steel and chips from Cobalt Semiconductors. "
    "Acme Corp also sources batteries from Delta Cells.",
    "zenith.md": "Zenith Motors competes with Cobalt Semiconductors in sensors and with Delta Cells in batteries. "
    "Zenith Motors also competes with Echo Robotics.",
    "funding.md": "Falcon Ventures invested in Borealis Steel. Borealis Steel acquired Gamma Mining in 2021.",
    "gamma.md": "Gamma Mining operates the Kiruna iron mine in the far north of Sweden. Gamma Mining ships its "
    "ore by rail to the port of Narvik.",
    "space.md": "Orion Rockets builds the Vega launcher. The Vega launcher flies from Kourou Spaceport. "
    "Kourou Spaceport is run by Astra Agency, which also funds Orion Rockets.",
}
ENTITIES = {
    "Acme Corp": ("organization", "acme.md"),
    "Borealis Steel": ("organization", None),
    "Cobalt Semiconductors": ("organization", None),
    "Delta Cells": ("organization", None),
    "Zenith Motors": ("organization", "zenith.md"),
    "Echo Robotics": ("organization", "zenith.md"),
    "Falcon Ventures": ("organization", "funding.md"),
    "Gamma Mining": ("organization", None),
    "Kiruna": ("location", "gamma.md"),
    "Narvik": ("location", "gamma.md"),
    "Orion Rockets": ("organization", "space.md"),
    "Vega launcher": ("product", "space.md"),
    "Kourou Spaceport": ("location", "space.md"),
    "Astra Agency": ("organization", "space.md"),
}
RELATIONS = [
    ("Borealis Steel", "SUPPLIES", "Acme Corp", "acme.md"),
    ("Cobalt Semiconductors", "SUPPLIES", "Acme Corp", "acme.md"),
    ("Delta Cells", "SUPPLIES", "Acme Corp", "acme.md"),
    ("Zenith Motors", "COMPETES_WITH", "Cobalt Semiconductors", "zenith.md"),
    ("Zenith Motors", "COMPETES_WITH", "Delta Cells", "zenith.md"),
    ("Zenith Motors", "COMPETES_WITH", "Echo Robotics", "zenith.md"),
    ("Falcon Ventures", "INVESTED_IN", "Borealis Steel", "funding.md"),
    ("Borealis Steel", "ACQUIRED", "Gamma Mining", "funding.md"),
    ("Gamma Mining", "OPERATES", "Kiruna", "gamma.md"),
    ("Gamma Mining", "SHIPS_TO", "Narvik", "gamma.md"),
    ("Orion Rockets", "BUILDS", "Vega launcher", "space.md"),
    ("Vega launcher", "LAUNCHES_FROM", "Kourou Spaceport", "space.md"),
    ("Astra Agency", "RUNS", "Kourou Spaceport", "space.md"),
    ("Astra Agency", "FUNDS", "Orion Rockets", "space.md"),
]
