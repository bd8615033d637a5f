# The install/consumer_project test (tests/CMakeLists.txt): minitf used the
# way another CMake project uses it.
#
#   cmake -DMINITF_BUILD_DIR=build -DWORK_DIR=<scratch> -DCONSUMER_SOURCE_DIR=<consumer>
#         -DGENERATOR=Ninja -DCXX_COMPILER=c++ [-DCXX_COMPILER_LAUNCHER=ccache]
#         [-DBUILD_TYPE=RelWithDebInfo] [-DDEPENDENCY_DIRS=<absl_DIR;fmt_DIR;...>]
#         -P consumer_project.cmake
#
# Installs the minitf build MINITF_BUILD_DIR into WORK_DIR/prefix, checks that
# the installed package names none of minitf's private dependencies, then
# configures the consumer project with CMAKE_PREFIX_PATH=WORK_DIR/prefix (and
# the main build's generator, compiler and build type), builds it and runs
# it. WORK_DIR is emptied first, so an earlier install cannot make it pass.
foreach(required MINITF_BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "consumer_project.cmake needs -D${required}=...")
  endif()
endforeach()

# A consumer needs a compiler and the packages minitf's config finds. On a
# machine a build was copied to, without them, the test says it skips (the
# test's SKIP_REGULAR_EXPRESSION) instead of failing for the machine's sake.
foreach(needed IN LISTS CXX_COMPILER DEPENDENCY_DIRS)
  if(NOT EXISTS ${needed})
    message("minitf consumer project skipped: ${needed}, which this build of minitf was "
            "configured with, is not on this machine")
    return()
  endif()
endforeach()
if(CXX_COMPILER_LAUNCHER AND NOT EXISTS ${CXX_COMPILER_LAUNCHER})
  set(CXX_COMPILER_LAUNCHER "")
endif()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

# Runs a command; fails the test, naming the step, when it fails.
function(run_step step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "${step} failed (${result}): ${command}")
  endif()
endfunction()

run_step("installing minitf" ${CMAKE_COMMAND} --install ${MINITF_BUILD_DIR} --prefix ${prefix})

# nlohmann-json and the CUDA libraries are linked into libminitf.so only: a
# consumer must not be asked to find them.
file(GLOB_RECURSE package_files ${prefix}/*/minitfTargets*.cmake ${prefix}/*/minitfConfig.cmake)
if(NOT package_files)
  message(FATAL_ERROR "no minitfConfig.cmake / minitfTargets.cmake under ${prefix}")
endif()
foreach(file IN LISTS package_files)
  file(READ ${file} text)
  if(text MATCHES "nlohmann|CUDA::|cudart|cublas|cudnn")
    message(FATAL_ERROR "${file} names a private dependency of minitf: ${CMAKE_MATCH_0}")
  endif()
endforeach()

set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(BUILD_TYPE)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
if(CXX_COMPILER_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER})
endif()
run_step("configuring the consumer" ${CMAKE_COMMAND} ${configure_args})

# The package found must be the one just installed.
file(STRINGS ${consumer_build}/CMakeCache.txt found REGEX "^minitf_DIR:")
string(REGEX REPLACE "^[^=]*=" "" found "${found}")
string(FIND "${found}" "${prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "the consumer found minitf in '${found}', not under ${prefix}")
endif()

run_step("building the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
run_step("running the consumer" ${consumer_build}/minitf_consumer)
