#!/bin/sh
# Generates the gRPC modules (regent/v1/regent_pb2*.py) from the proto into DIR (default: ./gen), with
# Debian's python3-grpc-tools. Put DIR and this directory on PYTHONPATH.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/gen}
python=${PYTHON:-python3}
mkdir -p "$out"
"$python" -m grpc_tools.protoc -I"$here/../../api/src/main/proto" --python_out="$out" --grpc_python_out="$out" \
  regent/v1/regent.proto
