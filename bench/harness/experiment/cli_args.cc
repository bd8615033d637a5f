#include "bench/harness/experiment/cli_args.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace minitf::harness {

absl::StatusOr<std::string> FlagValue(const std::vector<std::string>& args, size_t* i) {
  if (*i + 1 >= args.size()) {
    return absl::InvalidArgumentError(absl::StrCat(args[*i], " wants a value"));
  }
  return args[++*i];
}

absl::Status MakeDir(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create output directory '", dir, "': ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace minitf::harness
