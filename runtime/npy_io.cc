#include "runtime/npy_io.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "allocator/allocator.h"
#include "platform/file.h"
#include "platform/host_memory.h"

namespace minitf {
namespace {

constexpr absl::string_view kMagic("\x93NUMPY", 6);

struct DescrName {
  DataType dtype;
  absl::string_view descr;
};
constexpr DescrName kDescrs[] = {{DT_FLOAT, "<f4"},
                                 {DT_DOUBLE, "<f8"},
                                 {DT_INT32, "<i4"},
                                 {DT_INT64, "<i8"},
                                 {DT_BOOL, "|b1"}};

// The value of `key` in the header dict ("{'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }"), up to the next top-level comma.
absl::StatusOr<std::string> HeaderValue(absl::string_view header, absl::string_view key) {
  const std::string quoted = absl::StrCat("'", key, "'");
  size_t at = header.find(quoted);
  if (at == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("the header has no ", quoted));
  }
  absl::string_view rest = header.substr(at + quoted.size());
  rest = absl::StripLeadingAsciiWhitespace(rest);
  if (!absl::ConsumePrefix(&rest, ":")) {
    return absl::InvalidArgumentError(absl::StrCat("no ':' after ", quoted));
  }
  rest = absl::StripLeadingAsciiWhitespace(rest);
  size_t end = 0;
  int depth = 0;
  for (; end < rest.size(); ++end) {
    const char c = rest[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if ((c == ',' && depth == 0) || c == '}') break;
  }
  return std::string(absl::StripTrailingAsciiWhitespace(rest.substr(0, end)));
}

absl::StatusOr<TensorShape> ParseShape(absl::string_view text) {
  absl::string_view s = text;
  if (!absl::ConsumePrefix(&s, "(") || !absl::ConsumeSuffix(&s, ")")) {
    return absl::InvalidArgumentError(absl::StrCat("bad shape ", absl::CHexEscape(text)));
  }
  std::vector<int64_t> dims;
  for (absl::string_view piece : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    int64_t d;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(piece), &d)) {
      return absl::InvalidArgumentError(absl::StrCat("bad shape ", absl::CHexEscape(text)));
    }
    dims.push_back(d);
  }
  return TensorShape::Build(dims);
}

absl::StatusOr<Tensor> Parse(absl::string_view bytes) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    return absl::InvalidArgumentError("not a .npy file (no \\x93NUMPY magic string)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len;
  size_t header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return absl::InvalidArgumentError("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    }
    header_start = 12;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unsupported format version ", major));
  }
  if (bytes.size() < header_start + header_len) {
    return absl::InvalidArgumentError("truncated header");
  }
  const absl::string_view header = bytes.substr(header_start, header_len);
  absl::StatusOr<std::string> descr = HeaderValue(header, "descr");
  if (!descr.ok()) return descr.status();
  absl::StatusOr<std::string> fortran = HeaderValue(header, "fortran_order");
  if (!fortran.ok()) return fortran.status();
  absl::StatusOr<std::string> shape_text = HeaderValue(header, "shape");
  if (!shape_text.ok()) return shape_text.status();
  if (*fortran != "False") {
    return absl::InvalidArgumentError("Fortran-order arrays are not supported (save C order)");
  }
  absl::string_view d = *descr;
  if (!absl::ConsumePrefix(&d, "'") || !absl::ConsumeSuffix(&d, "'")) {
    return absl::InvalidArgumentError(absl::StrCat("bad descr ", absl::CHexEscape(*descr)));
  }
  // A one-byte type may be written with '|', '<' or '='.
  std::string normalized(d);
  if (normalized == "<b1" || normalized == "=b1") normalized = "|b1";
  if (!normalized.empty() && normalized[0] == '=') normalized[0] = '<';
  DataType dtype = DT_INVALID;
  for (const DescrName& n : kDescrs) {
    if (n.descr == normalized) dtype = n.dtype;
  }
  if (dtype == DT_INVALID) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype '", d, "' is not supported (float32 '<f4', float64 '<f8', int32 '<i4', "
        "int64 '<i8', bool '|b1')"));
  }
  absl::StatusOr<TensorShape> shape = ParseShape(*shape_text);
  if (!shape.ok()) return shape.status();
  const absl::string_view data = bytes.substr(header_start + header_len);
  const auto expected = static_cast<uint64_t>(shape->num_elements()) * DataTypeSize(dtype);
  if (data.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat("the data has ", data.size(),
                                                   " bytes; shape ", shape->DebugString(),
                                                   " of ", DataTypeString(dtype), " needs ",
                                                   expected));
  }
  absl::StatusOr<Tensor> t = Tensor::Allocate(cpu_allocator(), dtype, *shape);
  if (!t.ok()) return t.status();
  if (expected > 0) std::memcpy(t->raw_data(), data.data(), data.size());
  if (dtype == DT_BOOL) {
    // Any byte other than 0 or 1 is not a valid C++ bool.
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      auto* b = static_cast<unsigned char*>(t->raw_data()) + i;
      if (*b > 1) *b = 1;
    }
  }
  return t;
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view what) {
  absl::StatusOr<Tensor> t = Parse(bytes);
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat(what, ": ", t.status().message()));
  }
  return t;
}

std::string SerializeNpy(const Tensor& t) {
  absl::string_view descr;
  for (const DescrName& n : kDescrs) {
    if (n.dtype == t.dtype()) descr = n.descr;
  }
  std::vector<std::string> dims;
  for (int64_t d : t.shape().dim_sizes()) dims.push_back(absl::StrCat(d));
  const std::string shape = dims.size() == 1 ? absl::StrCat("(", dims[0], ",)")
                                             : absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ",
                                    shape, ", }");
  // Version 1.0: the magic, the version, the header length, and the header
  // padded with spaces and a newline so the data starts at a multiple of 64.
  const size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  if (t.TotalBytes() > 0) out.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  return out;
}

absl::StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  // A tensor larger than the memory this process may have could not be
  // held anyway.
  const int64_t limit = HostMemoryLimitBytes();
  absl::StatusOr<std::string> contents = ReadRegularFile(
      path, limit > 0 ? limit : INT64_MAX, "a .npy tensor (the host memory limit)");
  if (!contents.ok()) return contents.status();
  return ParseNpy(*contents, path);
}

absl::Status WriteNpyFile(const std::string& path, const Tensor& t) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path, "'"));
  out << SerializeNpy(t);
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("error writing '", path, "'"));
  return absl::OkStatus();
}

}  // namespace minitf
