// How a test process dies of a host access to strict SimGPU device memory,
// for EXPECT_EXIT: killed by SIGSEGV; under AddressSanitizer, whose handler
// reports the fault ("SEGV") and exits non-zero instead.
//
//   EXPECT_EXIT(ReadOnHost(device_ptr), test::DiedOfFault, test::kFaultReport);
#ifndef MINITF_TESTS_TESTLIB_FAULT_DEATH_H_
#define MINITF_TESTS_TESTLIB_FAULT_DEATH_H_

#include <sys/wait.h>

#include <csignal>

#if defined(__SANITIZE_ADDRESS__)
#define MINITF_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MINITF_TEST_UNDER_ASAN 1
#endif
#endif

namespace minitf::test {

inline bool DiedOfFault(int status) {
#ifdef MINITF_TEST_UNDER_ASAN
  return WIFEXITED(status) && WEXITSTATUS(status) != 0;
#else
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
#endif
}

#ifdef MINITF_TEST_UNDER_ASAN
inline constexpr char kFaultReport[] = "SEGV";
#else
inline constexpr char kFaultReport[] = "";
#endif

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_FAULT_DEATH_H_
