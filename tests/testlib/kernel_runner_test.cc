// The comparisons the kernel tests make: ExpectTensorNear admits values
// within tolerance, equal infinities and NaN against NaN, and nothing else.
#include <limits>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ExpectTensorNearTest, EqualInfinitiesMatch) {
  // An empty Max is -inf on every device: the comparison must accept it.
  ExpectTensorNear(Tensor::FromVector<float>({-kInf, kInf, 1.0f}),
                   Tensor::FromVector<float>({-kInf, kInf, 1.0f}));
}

TEST(ExpectTensorNearTest, OppositeInfinitiesAndNaNAgainstANumberDoNotMatch) {
  EXPECT_NONFATAL_FAILURE(ExpectTensorNear(Tensor::FromVector<float>({-kInf}),
                                           Tensor::FromVector<float>({kInf})),
                          "element 0");
  EXPECT_NONFATAL_FAILURE(ExpectTensorNear(Tensor::FromVector<float>({kInf}),
                                           Tensor::FromVector<float>({1.0f})),
                          "element 0");
  EXPECT_NONFATAL_FAILURE(ExpectTensorNear(Tensor::FromVector<float>({std::nanf("")}),
                                           Tensor::FromVector<float>({1.0f})),
                          "element 0");
}

TEST(ExpectTensorNearTest, ValuesWithinToleranceMatchAndOthersDoNot) {
  ExpectTensorNear(Tensor::FromVector<float>({1.0f}), Tensor::FromVector<float>({1.000001f}));
  EXPECT_NONFATAL_FAILURE(ExpectTensorNear(Tensor::FromVector<float>({1.0f}),
                                           Tensor::FromVector<float>({1.1f})),
                          "element 0");
}

}  // namespace
}  // namespace minitf::test
