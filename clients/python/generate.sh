#!/bin/sh
# Regenerates the gRPC modules shipped with the package (regent_client/v1/regent_pb2*.py, group_pb2*.py and their
# .pyi) from the repository's protos (regent.proto; group.proto: ownership groups), into DIR (default: this
# directory).
#
# Why these generators: the messages come from protoc 3.25.x (the Java build's own protoc, from Maven Central),
# whose Python code has no runtime version check and imports on Debian 12's python3-protobuf (4.21) as on the
# current releases from the Python package index (6.x, 7.x); grpcio-tools 1.63 and later emit code that refuses
# any older runtime, and protoc 3.5 (Debian's grpc_tools) code that protobuf 4.21 and later refuse. The service
# stubs come from Debian's grpc_tools (python3-grpc-tools), whose stubs call only grpc API that grpcio 1.51
# (Debian) and the current grpcio both have.
#
# Needs: $PROTOC, else protoc 3.25.9 in the local Maven repository (a build of the api module fetches it), and a
# python3 with grpc_tools ($PYTHON, else /usr/bin/python3 or python3 on PATH). PythonClientTest checks that the
# shipped modules are what this script makes of the proto.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
protoc=${PROTOC:-$HOME/.m2/repository/com/google/protobuf/protoc/3.25.9/protoc-3.25.9-linux-x86_64.exe}
if [ ! -f "$protoc" ]; then
  echo "generate.sh: no protoc at $protoc: build the api module (mvn -pl api compile) or set PROTOC" >&2
  exit 1
fi
python=
for candidate in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$candidate" -c 'import grpc_tools' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "generate.sh: no python3 with grpc_tools: apt-get install python3-grpc-tools (Debian)" >&2
  exit 1
fi
# Each proto is compiled as regent_client/v1/NAME.proto so that the modules land in the package and import
# each other as regent_client.v1 (no top-level package of their own to collide with a user's).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/regent_client/v1" "$out"
for proto in regent group; do
  cp "$here/../../api/src/main/proto/regent/v1/$proto.proto" "$work/regent_client/v1/$proto.proto"
done
cp "$protoc" "$work/protoc" && chmod +x "$work/protoc"
"$work/protoc" -I"$work" --python_out="$out" --pyi_out="$out" regent_client/v1/regent.proto regent_client/v1/group.proto
"$python" -m grpc_tools.protoc -I"$work" --grpc_python_out="$out" regent_client/v1/regent.proto \
  regent_client/v1/group.proto
