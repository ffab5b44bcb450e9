// Base64 through OpenSSL's EVP codec (common/base64.h): padding and the
// leniencies a kubeconfig's *-data fields need.
#include "common/base64.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

TEST_CASE("Base64Encode pads every length", "[base64]") {
  CHECK(Base64Encode("") == "");
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode(std::string("\0\xff", 2)) == "AP8=");
}

TEST_CASE("Base64Decode cuts the padding off and forgives what a kubeconfig does", "[base64]") {
  struct Case {
    const char* in;
    std::string out;
  };
  for (const Case& c :
       {Case{"", ""}, Case{"Zg==", "f"}, Case{"Zm8=", "fo"}, Case{"Zm9v", "foo"}, Case{"Zg", "f"},
        Case{"Zg=", "f"}, Case{"Zm9vYg", "foob"}, Case{"Zm9vYmE=", "fooba"},
        Case{" Zm9v\r\nYmE=\n", "fooba"}, Case{"AP8=", std::string("\0\xff", 2)}}) {
    std::string out = "stale";
    INFO(c.in);
    REQUIRE(Base64Decode(c.in, &out));
    CHECK(out == c.out);
  }
  std::string out;
  for (const char* bad : {"Zm9v!", "Zg==Zg==", "Zg===", "Zm9v\tYmE=", "Zm-v", "Zm_v"}) {
    INFO(bad);
    CHECK_FALSE(Base64Decode(bad, &out));
  }
}

TEST_CASE("Base64Decode reads what Base64Encode writes and refuses garbage", "[base64]") {
  std::string out;
  for (std::string s : {std::string(), std::string("f"), std::string("foobar"),
                        std::string("\xff\xfe\x00\x01", 4)}) {
    REQUIRE(Base64Decode(Base64Encode(s), &out));
    CHECK(out == s);
  }
  REQUIRE(Base64Decode("Zm9v\nYmFy\n", &out));
  CHECK(out == "foobar");
  CHECK_FALSE(Base64Decode("Zm9v!", &out));
  CHECK_FALSE(Base64Decode("Zg==Zg==", &out));
}

}  // namespace
}  // namespace gpulint
