#!/bin/sh
# Regenerates the gRPC modules shipped with the package (regent/v1/regent_pb2*.py) from the repository's
# proto, into DIR (default: this directory). Needs an interpreter with grpc_tools: $PYTHON, else the first of
# /usr/bin/python3 (Debian's python3-grpc-tools) and python3 on PATH that has it. PythonClientTest checks
# that the shipped modules match the proto.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
python=
for candidate in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$candidate" -c 'import grpc_tools' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "generate.sh: no python3 with grpc_tools: apt-get install python3-grpc-tools (Debian), or pip install grpcio-tools and set PYTHON" >&2
  exit 1
fi
mkdir -p "$out"
"$python" -m grpc_tools.protoc -I"$here/../../api/src/main/proto" --python_out="$out" --grpc_python_out="$out" \
  regent/v1/regent.proto
