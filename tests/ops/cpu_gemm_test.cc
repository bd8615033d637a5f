// functor::Gemm (ops/kernels/cpu_gemm.h), the host's float and double matrix
// products, float through oneDNN and through OpenBLAS, double through
// OpenBLAS: every transpose combination, strided operands, beta 0 (c not
// read) and 1, k == 0, and products split over a thread pool by rows and by
// columns, against a triple loop in double; which library Gemm chooses.
// ctest also runs this binary with OPENBLAS_CORETYPE forcing AVX2 (Haswell)
// and SSE3 (Prescott) kernels, MINITF_MAX_CPU_ISA capping oneDNN at AVX2 or
// turning it off, and TF_ENABLE_ONEDNN_OPTS=0 (tests/CMakeLists.txt): the
// same answers on a machine without AVX-512.
#include "ops/kernels/cpu_gemm.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"
#include "ops/kernels/onednn_host.h"

namespace minitf::functor {
namespace {

// A matrix stored row-major with `ld` >= cols elements per row.
template <typename T>
struct Stored {
  int64_t rows = 0, cols = 0, ld = 0;
  std::vector<T> data;
  T at(int64_t r, int64_t c) const { return data[r * ld + c]; }
};

template <typename T>
Stored<T> Random(int64_t rows, int64_t cols, int64_t pad, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  Stored<T> m{rows, cols, cols + pad, {}};
  m.data.resize(static_cast<size_t>(std::max<int64_t>(rows * m.ld, 1)));
  for (T& v : m.data) v = static_cast<T>(dist(rng));
  return m;
}

template <typename T>
struct Case {
  bool ta, tb;
  int64_t m, n, k;
  T beta;
};

// Runs GemmUsing(library) and checks c against the triple loop; `device`
// may be null.
template <typename T>
void ExpectProduct(GemmLibrary library, const Eigen::ThreadPoolDevice* device, const Case<T>& c,
                   T tolerance) {
  SCOPED_TRACE(testing::Message()
               << "library=" << (library == GemmLibrary::kOneDnn ? "oneDNN" : "OpenBLAS")
               << " ta=" << c.ta << " tb=" << c.tb << " m=" << c.m << " n=" << c.n
               << " k=" << c.k << " beta=" << c.beta
               << " threads=" << (device ? device->numThreads() : 0));
  const Stored<T> a = c.ta ? Random<T>(c.k, c.m, 3, 1) : Random<T>(c.m, c.k, 3, 1);
  const Stored<T> b = c.tb ? Random<T>(c.n, c.k, 2, 2) : Random<T>(c.k, c.n, 2, 2);
  Stored<T> out = Random<T>(c.m, c.n, 1, 3);
  const Stored<T> before = out;
  GemmArgs<T> g;
  g.transpose_a = c.ta;
  g.transpose_b = c.tb;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.a = a.data.data();
  g.lda = a.ld;
  g.b = b.data.data();
  g.ldb = b.ld;
  g.beta = c.beta;
  g.c = out.data.data();
  g.ldc = out.ld;
  // Beta 0: c is not read, whatever it holds.
  if (c.beta == T(0)) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        out.data[i * out.ld + j] = std::numeric_limits<T>::quiet_NaN();
      }
    }
  }
  GemmUsing<T>(library, device, g);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double expected = static_cast<double>(c.beta) * static_cast<double>(before.at(i, j));
      for (int64_t p = 0; p < c.k; ++p) {
        expected += static_cast<double>(c.ta ? a.at(p, i) : a.at(i, p)) *
                    static_cast<double>(c.tb ? b.at(j, p) : b.at(p, j));
      }
      ASSERT_NEAR(out.at(i, j), expected, tolerance) << "c[" << i << ", " << j << "]";
    }
    // The padding past each row's n columns is not written.
    for (int64_t j = c.n; j < out.ld; ++j) ASSERT_EQ(out.at(i, j), before.at(i, j));
  }
}

template <typename T>
std::vector<Case<T>> Cases() {
  std::vector<Case<T>> cases;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (T beta : {T(0), T(1)}) {
        cases.push_back({ta, tb, 37, 29, 41, beta});    // Odd sizes, one thread.
        cases.push_back({ta, tb, 300, 70, 200, beta});  // Split by rows.
        cases.push_back({ta, tb, 20, 500, 160, beta});  // Split by columns.
        cases.push_back({ta, tb, 1, 1, 7, beta});
      }
    }
  }
  return cases;
}

class CpuGemmTest : public ::testing::Test {
 protected:
  Eigen::ThreadPool pool_{4};
  Eigen::ThreadPoolDevice device_{&pool_, 4};
};

TEST_F(CpuGemmTest, FloatThroughOpenBlasMatchesTheTripleLoopOnOneThreadAndOnAPool) {
  for (const Case<float>& c : Cases<float>()) {
    ExpectProduct<float>(GemmLibrary::kOpenBlas, nullptr, c, 1e-4f);
    ExpectProduct<float>(GemmLibrary::kOpenBlas, &device_, c, 1e-4f);
  }
}

TEST_F(CpuGemmTest, FloatThroughOneDnnMatchesTheTripleLoopOnOneThreadAndOnAPool) {
  if (!OneDnnEnabled()) GTEST_SKIP() << "oneDNN is off: " << WhyOneDnnOff();
  for (const Case<float>& c : Cases<float>()) {
    ExpectProduct<float>(GemmLibrary::kOneDnn, nullptr, c, 1e-4f);
    ExpectProduct<float>(GemmLibrary::kOneDnn, &device_, c, 1e-4f);
  }
}

// A product asked for by one of the pool's own threads (the blocks of a
// caller outside the pool run on the pool alone; this caller takes one).
TEST_F(CpuGemmTest, ProductsFromThePoolsOwnThreadsAreComplete) {
  Eigen::Barrier done(1);
  pool_.Schedule([&] {
    EXPECT_GE(device_.currentThreadId(), 0);
    for (const Case<float>& c : Cases<float>()) {
      ExpectProduct<float>(GemmLibrary::kOpenBlas, &device_, c, 1e-4f);
    }
    done.Notify();
  });
  done.Wait();
}

TEST_F(CpuGemmTest, DoubleMatchesTheTripleLoopOnOneThreadAndOnAPool) {
  for (const Case<double>& c : Cases<double>()) {
    ExpectProduct<double>(GemmLibrary::kOpenBlas, nullptr, c, 1e-12);
    ExpectProduct<double>(GemmLibrary::kOpenBlas, &device_, c, 1e-12);
  }
}

// Float goes through oneDNN exactly when it is on; double never does. The
// profile's line says which.
TEST_F(CpuGemmTest, FloatProductsGoThroughOneDnnWhenItIsOn) {
  const char* opts = std::getenv("TF_ENABLE_ONEDNN_OPTS");
  const char* isa = std::getenv("MINITF_MAX_CPU_ISA");
  const bool off = (opts != nullptr && !ParseOneDnnOpts(opts).value_or(true)) ||
                   (isa != nullptr && std::string(isa) == "baseline");
  EXPECT_EQ(OneDnnEnabled(), !off);
  EXPECT_EQ(DefaultGemmLibrary<float>(), off ? GemmLibrary::kOpenBlas : GemmLibrary::kOneDnn);
  EXPECT_EQ(DefaultGemmLibrary<double>(), GemmLibrary::kOpenBlas);
  const std::string name = HostMatrixProductName();
  if (off) {
    EXPECT_EQ(name, "OpenBLAS, " + GemmCoreName() + " kernels (" + WhyOneDnnOff() + ")");
  } else {
    EXPECT_EQ(name,
              "float: " + OneDnnName() + "; double: OpenBLAS, " + GemmCoreName() + " kernels");
  }
}

TEST_F(CpuGemmTest, EmptyInnerDimensionGivesBetaTimesCAndNeverReadsCForBetaZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> c = {nan, nan, nan, nan, nan, nan};
  GemmArgs<float> g = PackedGemm<float>(false, false, 2, 3, 0, nullptr, nullptr, c.data());
  Gemm<float>(&device_, g);
  for (float v : c) EXPECT_EQ(v, 0.0f);
  c = {1, 2, 3, 4, 5, 6};
  g.beta = 1.0f;
  Gemm<float>(&device_, g);
  EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(CpuGemmTest, EmptyOutputWritesNothing) {
  std::vector<float> c = {7};
  Gemm<float>(&device_, PackedGemm<float>(false, false, 0, 1, 5, nullptr, nullptr, c.data()));
  EXPECT_EQ(c[0], 7.0f);
}

// The kernel family is the machine's, or the one OPENBLAS_CORETYPE forces:
// the forced runs above then really ran AVX2 or SSE3 code.
TEST_F(CpuGemmTest, KernelFamilyIsTheForcedOneWhenOneIsForced) {
  const std::string core = GemmCoreName();
  EXPECT_FALSE(core.empty());
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced == nullptr) GTEST_SKIP() << "OPENBLAS_CORETYPE unset; OpenBLAS chose " << core;
  EXPECT_EQ(absl::AsciiStrToLower(core), absl::AsciiStrToLower(forced));
}

}  // namespace
}  // namespace minitf::functor
