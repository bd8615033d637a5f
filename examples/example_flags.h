// The flags the training examples share, as --flag=value or --flag value:
//   --steps N  --learning_rate F  --print_every N  --device CPU|GPU
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
    std::string arg = argv[i];
    // "--flag value" is read as "--flag=value".
    if (arg.find('=') == std::string::npos && i + 1 < argc) arg += std::string("=") + argv[++i];
    absl::string_view view = arg;
    bool ok = false;
    if (absl::ConsumePrefix(&view, "--steps=")) {
      ok = absl::SimpleAtoi(view, &flags->steps) && flags->steps > 0;
    } else if (absl::ConsumePrefix(&view, "--learning_rate=")) {
      ok = absl::SimpleAtof(view, &flags->learning_rate) && flags->learning_rate > 0;
    } else if (absl::ConsumePrefix(&view, "--print_every=")) {
      ok = absl::SimpleAtoi(view, &flags->print_every) && flags->print_every > 0;
    } else if (absl::ConsumePrefix(&view, "--device=")) {
      ok = view == "CPU" || view == "GPU";
      flags->device = "/device:" + std::string(view) + ":0";
    }
    if (!ok) {
      std::fprintf(stderr,
                   "bad flag '%s'\nusage: %s [--steps N] [--learning_rate F] "
                   "[--print_every N] [--device CPU|GPU]\n",
                   arg.c_str(), argv[0]);
      return false;
    }
  }
  return true;
}

}  // namespace minitf

#endif  // MINITF_EXAMPLES_EXAMPLE_FLAGS_H_
