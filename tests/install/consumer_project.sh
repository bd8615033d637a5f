#!/bin/sh
# The install/consumer_project test's command (tests/CMakeLists.txt):
#
#   sh consumer_project.sh CMAKE ARGS...
#
# runs `CMAKE ARGS...` (consumer_project.cmake in script mode) with the cmake
# this build was configured with, or else the machine's own (a build packed
# for another machine, ../shared/gpu/, may find its cmake elsewhere). With no
# cmake at all it says that it skips, in the words ctest's
# SKIP_REGULAR_EXPRESSION for the test matches.
cmake_command=$1
shift
if [ ! -x "$cmake_command" ]; then
  cmake_command=$(command -v cmake)
fi
if [ -z "$cmake_command" ]; then
  echo "minitf consumer project skipped: no cmake on this machine"
  exit 0
fi
exec "$cmake_command" "$@"
