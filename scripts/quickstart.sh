#!/usr/bin/env bash
# The whole demo on a fresh clone: set up, start the local Neo4j, ingest the bundled space corpus
# offline, and answer a few questions with citations.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
gw=.venv/bin/graphwright

$gw db start
$gw init
$gw ingest --sample --meta collection=space
$gw communities show --level 0 --top 3
$gw stats
for question in \
  "Who founded SpaceX and when?" \
  "Which rocket launched Apollo 11, and who designed it?" \
  "What has the NORAD catalog number 25544?"; do
  echo
  echo "\$ graphwright query \"$question\" --k 3"
  $gw query "$question" --k 3
done
echo
echo "\$ graphwright query \"reusable rockets\" --where category=rockets --where year>=2024 --k 2"
$gw query "reusable rockets" --where category=rockets --where "year>=2024" --k 2
for args in \
  "What did Wernher von Braun work on?|local" \
  "How is Jeff Bezos connected to NASA?|path --explain" \
  "What are the main themes of these documents?|global"; do
  question=${args%|*}
  mode=${args#*|}
  echo
  echo "\$ graphwright query \"$question\" --mode $mode --k 3"
  # shellcheck disable=SC2086  # "path --explain": the mode and its flag
  $gw query "$question" --mode $mode --k 3
done
echo
echo "\$ graphwright chat --no-save   # a follow-up question is searched with what it refers to"
printf 'Tell me about the Hubble Space Telescope.\nWho made its primary mirror?\n/quit\n' | $gw chat --no-save
echo
echo "See an answer's evidence in Neo4j Browser: open the link printed under it, connect as user neo4j"
echo "(password: NEO4J_PASSWORD, or the one db start generated: cat ~/.graphwright/neo4j-password) and press Run. More queries: .venv/bin/graphwright browser"
echo "Talk with follow-ups: .venv/bin/graphwright chat"
echo "Ask in a web page, over HTTP, from an agent (MCP), Dify or Open WebUI: .venv/bin/graphwright serve, then open http://127.0.0.1:8000/"
echo "Stop the server with: .venv/bin/graphwright db stop"
