// SimGPUBlas::DoBlasGemm against a naive column-major loop, every transpose
// combination, with padded leading dimensions.
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "stream/blas.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

using blas::Transpose;

class SimGPUBlasTest : public ::testing::Test {
 protected:
  SimGPUBlasTest()
      : platform_(*SimGPUPlatform::Create(*ParseSimGPUOptions("memory=16MiB,mode=functional"))),
        gpu_(*platform_->ExecutorForDevice(0)),
        stream_(*gpu_->CreateStream()) {}

  DeviceMemory<float> Upload(const std::vector<float>& host) {
    DeviceMemory<float> mem(gpu_->Allocate(host.size() * sizeof(float)));
    EXPECT_FALSE(mem.is_null());
    EXPECT_TRUE(gpu_->SynchronousMemcpyH2D(host.data(), mem.size(), &mem).ok());
    allocated_.push_back(mem);
    return mem;
  }

  std::vector<float> Download(const DeviceMemory<float>& mem) {
    std::vector<float> host(mem.ElementCount());
    EXPECT_TRUE(gpu_->SynchronousMemcpyD2H(mem, mem.size(), host.data()).ok());
    return host;
  }

  ~SimGPUBlasTest() override {
    stream_.reset();
    for (auto& m : allocated_) gpu_->Deallocate(&m);
  }

  std::unique_ptr<SimGPUPlatform> platform_;
  StreamExecutor* gpu_;
  std::unique_ptr<Stream> stream_;
  std::vector<DeviceMemoryBase> allocated_;
};

std::vector<float> Random(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

TEST_F(SimGPUBlasTest, GemmMatchesNaiveLoopForEveryTransposition) {
  constexpr int m = 5, n = 7, k = 3;
  std::mt19937 rng(1);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int a_rows = ta ? k : m, a_cols = ta ? m : k;
      const int b_rows = tb ? n : k, b_cols = tb ? k : n;
      const int lda = a_rows + 2, ldb = b_rows + 1, ldc = m + 3;
      const std::vector<float> a = Random(lda * a_cols, &rng);
      const std::vector<float> b = Random(ldb * b_cols, &rng);
      const std::vector<float> c = Random(ldc * n, &rng);
      const float alpha = 1.5f, beta = 0.5f;
      std::vector<float> expected = c;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int p = 0; p < k; ++p) {
            const float aip = ta ? a[p + i * lda] : a[i + p * lda];
            const float bpj = tb ? b[j + p * ldb] : b[p + j * ldb];
            sum += static_cast<double>(aip) * bpj;
          }
          expected[i + j * ldc] = static_cast<float>(alpha * sum + beta * c[i + j * ldc]);
        }
      }
      DeviceMemory<float> da = Upload(a), db = Upload(b), dc = Upload(c);
      ASSERT_TRUE(gpu_->AsBlas()
                      ->DoBlasGemm(stream_.get(), ta ? Transpose::kTranspose : Transpose::kNoTranspose,
                                   tb ? Transpose::kTranspose : Transpose::kNoTranspose, m, n, k,
                                   alpha, da, lda, db, ldb, beta, &dc, ldc)
                      .ok());
      ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
      const std::vector<float> got = Download(dc);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], expected[i], 1e-5) << "ta=" << ta << " tb=" << tb << " i=" << i;
      }
    }
  }
}

TEST_F(SimGPUBlasTest, BetaZeroDoesNotReadC) {
  const std::vector<float> a = {1, 2, 3, 4};  // 2x2, column-major
  const std::vector<float> b = {1, 0, 0, 1};  // identity
  const std::vector<float> c(4, std::nanf(""));
  DeviceMemory<float> da = Upload(a), db = Upload(b), dc = Upload(c);
  ASSERT_TRUE(gpu_->AsBlas()
                  ->DoBlasGemm(stream_.get(), Transpose::kNoTranspose, Transpose::kNoTranspose, 2,
                               2, 2, 2.0f, da, 2, db, 2, 0.0f, &dc, 2)
                  .ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  EXPECT_EQ(Download(dc), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(SimGPUBlasTest, GemmChecksShapesAndStream) {
  DeviceMemory<float> small = Upload(std::vector<float>(4));
  DeviceMemory<float> big = Upload(std::vector<float>(64));
  BlasSupport* blas = gpu_->AsBlas();
  // lda below the row count.
  EXPECT_EQ(blas->DoBlasGemm(stream_.get(), Transpose::kNoTranspose, Transpose::kNoTranspose, 4,
                             4, 4, 1, big, 3, big, 4, 0, &big, 4)
                .code(),
            absl::StatusCode::kInvalidArgument);
  // A buffer too small for its matrix.
  absl::Status s = blas->DoBlasGemm(stream_.get(), Transpose::kNoTranspose,
                                    Transpose::kNoTranspose, 4, 4, 4, 1, small, 4, big, 4, 0,
                                    &big, 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("matrix a"), absl::string_view::npos) << s;
  // A stream of another device.
  auto other = *SimGPUPlatform::Create(*ParseSimGPUOptions("memory=1MiB,mode=functional"));
  auto foreign = *(*other->ExecutorForDevice(0))->CreateStream();
  EXPECT_EQ(blas->DoBlasGemm(foreign.get(), Transpose::kNoTranspose, Transpose::kNoTranspose, 2,
                             2, 2, 1, big, 2, big, 2, 0, &big, 2)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf::se
