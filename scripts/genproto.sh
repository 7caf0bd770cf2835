#!/usr/bin/env bash
# Regenerates kservepb/*.pb.go from kservepb/inference.proto.
# Needs protoc (Debian: apt-get install protobuf-compiler); installs the Go
# plugins at the versions go.mod pins.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v protoc >/dev/null || { echo "protoc not found: apt-get install -y protobuf-compiler" >&2; exit 2; }
export GOBIN="${GOBIN:-$(go env GOPATH)/bin}"
go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
PATH="$GOBIN:$PATH" protoc -I kservepb \
  --go_out=kservepb --go_opt=paths=source_relative \
  --go-grpc_out=kservepb --go-grpc_opt=paths=source_relative \
  kservepb/inference.proto
gofmt -l kservepb || true
