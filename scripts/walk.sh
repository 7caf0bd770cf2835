#!/bin/sh
# walk.sh prints how far the configuration travels below package gate
# (rooms, moves, climbs; see scripts/walk/main.go). -v lists each one.
set -e
cd "$(dirname "$0")/.."
exec go run ./scripts/walk "$@"
