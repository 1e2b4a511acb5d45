"""Generated from api/src/main/proto/regent (generate.sh); do not edit."""
