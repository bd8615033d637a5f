// The flags the training examples share:
//   --steps=N  --learning_rate=F  --print_every=N  --device=CPU|GPU
#ifndef MINITF_EXAMPLES_EXAMPLE_FLAGS_H_
#define MINITF_EXAMPLES_EXAMPLE_FLAGS_H_

#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace minitf {

struct ExampleFlags {
  int steps = 300;
  float learning_rate = 0.5f;
  int print_every = 20;
  std::string device;  // "/device:GPU:0"; "" = the placer's choice
};

// Parses argv into `flags` (whose fields hold the defaults); prints the usage
// and returns false on a bad flag.
inline bool ParseExampleFlags(int argc, char** argv, ExampleFlags* flags) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    bool ok = false;
    if (absl::ConsumePrefix(&arg, "--steps=")) {
      ok = absl::SimpleAtoi(arg, &flags->steps) && flags->steps > 0;
    } else if (absl::ConsumePrefix(&arg, "--learning_rate=")) {
      ok = absl::SimpleAtof(arg, &flags->learning_rate) && flags->learning_rate > 0;
    } else if (absl::ConsumePrefix(&arg, "--print_every=")) {
      ok = absl::SimpleAtoi(arg, &flags->print_every) && flags->print_every > 0;
    } else if (absl::ConsumePrefix(&arg, "--device=")) {
      ok = arg == "CPU" || arg == "GPU";
      flags->device = "/device:" + std::string(arg) + ":0";
    }
    if (!ok) {
      std::fprintf(stderr,
                   "bad flag '%s'\nusage: %s [--steps=N] [--learning_rate=F] "
                   "[--print_every=N] [--device=CPU|GPU]\n",
                   argv[i], argv[0]);
      return false;
    }
  }
  return true;
}

}  // namespace minitf

#endif  // MINITF_EXAMPLES_EXAMPLE_FLAGS_H_
