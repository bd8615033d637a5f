// The flags the training examples share, as --flag=value or --flag value:
//   --steps N  --learning_rate F  --print_every N  --device CPU|GPU
#ifndef MINITF_EXAMPLES_EXAMPLE_FLAGS_H_
#define MINITF_EXAMPLES_EXAMPLE_FLAGS_H_

#include <cmath>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace minitf {

struct ExampleFlags {
  int steps = 300;
  float learning_rate = 0.5f;
  int print_every = 20;
  std::string device;  // "/device:GPU:0"; "" = the placer's choice
};

// Parses argv into `flags` (whose fields hold the defaults). On a bad flag
// (unknown, without a value, or a value out of range: counts are integers
// in 1..INT_MAX, the learning rate a finite float > 0) prints what is wrong,
// naming the flag, and the usage, and returns false.
inline bool ParseExampleFlags(int argc, char** argv, ExampleFlags* flags) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    std::string value;
    std::string error;
    if (eq != absl::string_view::npos) {
      value = std::string(arg.substr(eq + 1));
    } else if (i + 1 < argc) {
      value = argv[++i];  // "--flag value"
    } else {
      error = absl::StrCat(name, " wants a value");
    }
    const auto count = [&](int* out) {
      if (!absl::SimpleAtoi(value, out) || *out < 1) {
        error = absl::StrCat(name, " wants an integer in 1..2147483647, got '", value, "'");
      }
    };
    if (!error.empty()) {
      // Reported below.
    } else if (name == "--steps") {
      count(&flags->steps);
    } else if (name == "--print_every") {
      count(&flags->print_every);
    } else if (name == "--learning_rate") {
      // SimpleAtof reads "inf", "nan", and 1e39 (beyond float) as inf.
      float rate = 0;
      if (!absl::SimpleAtof(value, &rate) || !std::isfinite(rate) || rate <= 0) {
        error = absl::StrCat(name, " wants a finite number > 0, got '", value, "'");
      }
      flags->learning_rate = rate;
    } else if (name == "--device") {
      if (value != "CPU" && value != "GPU") {
        error = absl::StrCat(name, " wants CPU or GPU, got '", value, "'");
      }
      flags->device = "/device:" + value + ":0";
    } else {
      error = absl::StrCat("unknown flag '", name, "'");
    }
    if (!error.empty()) {
      std::fprintf(stderr,
                   "%s\nusage: %s [--steps N] [--learning_rate F] [--print_every N] "
                   "[--device CPU|GPU]\n",
                   error.c_str(), argv[0]);
      return false;
    }
  }
  return true;
}

}  // namespace minitf

#endif  // MINITF_EXAMPLES_EXAMPLE_FLAGS_H_
