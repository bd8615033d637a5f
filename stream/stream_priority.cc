#include "stream/stream_priority.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace minitf::se {

absl::StatusOr<StreamPriority> ParseStreamPriority(absl::string_view name) {
  if (name == "low") return StreamPriority::kLowest;
  if (name == "default") return StreamPriority::kDefault;
  if (name == "high") return StreamPriority::kHighest;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown stream priority '", name, "' (expected 'low', 'default' or 'high')"));
}

const char* StreamPriorityName(StreamPriority priority) {
  switch (priority) {
    case StreamPriority::kLowest:
      return "low";
    case StreamPriority::kDefault:
      return "default";
    case StreamPriority::kHighest:
      return "high";
  }
  return "unknown";
}

}  // namespace minitf::se
