// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string_view>

#include "diagnose/dra_cel.hpp"

using gpuslice::diagnose::CelResult;
using gpuslice::diagnose::DeviceSelector;
using gpuslice::model::Device;
using gpuslice::model::Quantity;

namespace {

constexpr std::string_view k_nvidia = "gpu.nvidia.com";
constexpr std::string_view k_nic_driver = "sriovnetwork.k8s.io";
// The DeviceClasses NVIDIA's DRA driver installs (gpu.nvidia.com, mig.nvidia.com).
constexpr std::string_view k_gpu_class =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
constexpr std::string_view k_mig_class =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";

Device with_memory(Device d, std::string_view memory) {
  d.capacity.insert_or_assign("memory", *Quantity::parse(memory));
  return d;
}

// A full GPU as the NVIDIA driver publishes it: unqualified names are in gpu.nvidia.com.
Device gpu() {
  Device d{"gpu-0", {}, {}};
  d.attributes = {{"type", "string", "gpu"},
                  {"productName", "string", "NVIDIA A100-SXM4-80GB"},
                  {"index", "int", "0"},
                  {"driverVersion", "version", "550.54.15"},
                  {"resource.kubernetes.io/pcieRoot", "string", "pci0000:00"}};
  return with_memory(d, "80Gi");
}

Device mig() {
  Device d{"gpu-0-mig-1g10gb-0", {}, {}};
  d.attributes = {{"type", "string", "mig"},
                  {"profile", "string", "1g.10gb"},
                  {"productName", "string", "NVIDIA A100-SXM4-80GB"}};
  return with_memory(d, "9856Mi");
}

// A device of another driver: it has no gpu.nvidia.com attributes at all.
Device nic() {
  Device d{"vf-0", {}, {}};
  d.attributes = {{"vendor", "string", "15b3"}};
  return d;
}

CelResult on_gpu(std::string_view expression) {
  return DeviceSelector::parse(expression).matches(k_nvidia, gpu());
}

} // namespace

TEST_CASE("diagnose::DeviceSelector::matches cel device classes") {
  const DeviceSelector gpu_class = DeviceSelector::parse(k_gpu_class);
  const DeviceSelector mig_class = DeviceSelector::parse(k_mig_class);
  CHECK(gpu_class.unsupported().empty());
  CHECK(gpu_class.expression() == k_gpu_class);
  SUBCASE("a full GPU") {
    CHECK(gpu_class.matches(k_nvidia, gpu()) == CelResult::match);
    CHECK(mig_class.matches(k_nvidia, gpu()) == CelResult::no_match);
  }
  SUBCASE("a MIG device") {
    CHECK(gpu_class.matches(k_nvidia, mig()) == CelResult::no_match);
    CHECK(mig_class.matches(k_nvidia, mig()) == CelResult::match);
  }
  SUBCASE("a device of another driver: the driver test guards the attribute lookup") {
    const auto outcome = gpu_class.evaluate(k_nic_driver, nic());
    CHECK(outcome.result == CelResult::no_match);
    CHECK(outcome.error.empty());
  }
}

TEST_CASE("diagnose::DeviceSelector::matches cel attributes") {
  SUBCASE("string equality, either quote, field or index form") {
    CHECK(on_gpu(R"(device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-80GB")") ==
          CelResult::match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com']['productName'] == 'NVIDIA A100-SXM4-80GB'") ==
          CelResult::match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].productName != 'NVIDIA H100 80GB HBM3'") ==
          CelResult::match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'") ==
          CelResult::no_match);
  }
  SUBCASE("int and bool comparisons") {
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].index >= 0") == CelResult::match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].index < 0") == CelResult::no_match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].index == -1") == CelResult::no_match);
    CHECK(on_gpu("true") == CelResult::match);
    CHECK(on_gpu("!(false)") == CelResult::match);
  }
  SUBCASE("across types: == is false, ordering is an error") {
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].index == '0'") == CelResult::no_match);
    const auto outcome = DeviceSelector::parse("device.attributes['gpu.nvidia.com'].index < 'a'")
                             .evaluate(k_nvidia, gpu());
    CHECK(outcome.result == CelResult::no_match);
    CHECK(outcome.error == "no such overload");
  }
  SUBCASE("a qualified attribute lives in its own domain") {
    CHECK(on_gpu("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'") ==
              CelResult::match);
  }
  SUBCASE("presence tests") {
    CHECK(on_gpu("'productName' in device.attributes['gpu.nvidia.com']") == CelResult::match);
    CHECK(on_gpu("'profile' in device.attributes['gpu.nvidia.com']") == CelResult::no_match);
    CHECK(on_gpu("has(device.attributes['gpu.nvidia.com'].profile)") == CelResult::no_match);
    CHECK(on_gpu("'gpu.nvidia.com' in device.attributes") == CelResult::match);
  }
  SUBCASE("string functions and lists") {
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')") ==
          CelResult::match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].productName.contains('H100')") ==
          CelResult::no_match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].type in ['gpu', 'mig']") == CelResult::match);
  }
}

TEST_CASE("diagnose::DeviceSelector::matches cel capacity") {
  const DeviceSelector at_least_40 =
      DeviceSelector::parse("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0");
  CHECK(at_least_40.unsupported().empty());
  CHECK(at_least_40.matches(k_nvidia, gpu()) == CelResult::match);
  CHECK(at_least_40.matches(k_nvidia, mig()) == CelResult::no_match);
  CHECK(on_gpu("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) == 0") ==
        CelResult::match);
  CHECK(on_gpu("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))") ==
        CelResult::no_match);
  CHECK(on_gpu("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('81Gi'))") ==
        CelResult::match);
}

TEST_CASE("diagnose::DeviceSelector::matches cel absent attribute") {
  // An unknown domain is an empty map; a missing key in it is CEL's runtime error.
  const DeviceSelector selector =
      DeviceSelector::parse("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-80GB'");
  const auto outcome = selector.evaluate(k_nic_driver, nic());
  CHECK(outcome.result == CelResult::no_match);
  CHECK(outcome.error == "no such key: productName");
  SUBCASE("the error is not false: negating it does not match") {
    CHECK(DeviceSelector::parse("!(device.attributes['gpu.nvidia.com'].productName == 'x')")
              .matches(k_nic_driver, nic()) == CelResult::no_match);
  }
  SUBCASE("|| and && absorb it") {
    CHECK(DeviceSelector::parse("device.attributes['gpu.nvidia.com'].productName == 'x' || true")
              .matches(k_nic_driver, nic()) == CelResult::match);
    const auto guarded = DeviceSelector::parse(
                             "device.attributes['gpu.nvidia.com'].productName == 'x' && "
                             "device.driver == 'gpu.nvidia.com'")
                             .evaluate(k_nic_driver, nic());
    CHECK(guarded.result == CelResult::no_match);
    CHECK(guarded.error.empty());
  }
}

TEST_CASE("diagnose::DeviceSelector::matches cel unknown parts") {
  SUBCASE("a function we do not implement") {
    const DeviceSelector s =
        DeviceSelector::parse("device.attributes['gpu.nvidia.com'].productName.matches('^NVIDIA A100')");
    CHECK(s.matches(k_nvidia, gpu()) == CelResult::unknown);
    CHECK(s.unsupported() == "matches('^NVIDIA A100')");
  }
  SUBCASE("three-valued logic") {
    CHECK(on_gpu("false && device.attributes['gpu.nvidia.com'].productName.matches('A100')") ==
          CelResult::no_match);
    CHECK(on_gpu("device.attributes['gpu.nvidia.com'].productName.matches('A100') && false") ==
          CelResult::no_match);
    CHECK(on_gpu("true || size(device.attributes['gpu.nvidia.com']) > 2") == CelResult::match);
    CHECK(on_gpu("true && size(device.attributes['gpu.nvidia.com']) > 2") == CelResult::unknown);
    CHECK(on_gpu("device.driver == 'other' && device.attributes['x'].y.matches('z')") ==
          CelResult::no_match);
  }
  SUBCASE("versions and cel.bind") {
    const DeviceSelector version = DeviceSelector::parse(
        "device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.0.0')) >= 0");
    CHECK(version.matches(k_nvidia, gpu()) == CelResult::unknown);
    CHECK(version.unsupported() == "semver('550.0.0')");
    const DeviceSelector bind =
        DeviceSelector::parse("cel.bind(dra, device.attributes['gpu.nvidia.com'], dra.type == 'gpu')");
    CHECK(bind.matches(k_nvidia, gpu()) == CelResult::unknown);
    CHECK(bind.unsupported() == bind.expression());
  }
  SUBCASE("device fields our model does not carry") {
    const DeviceSelector s = DeviceSelector::parse("device.allowMultipleAllocations");
    CHECK(s.matches(k_nvidia, gpu()) == CelResult::unknown);
    CHECK(s.unsupported() == "device.allowMultipleAllocations");
  }
  SUBCASE("syntax beyond this evaluator is kept verbatim") {
    const DeviceSelector bad = DeviceSelector::parse("device.driver = 'gpu.nvidia.com'");
    CHECK(bad.matches(k_nvidia, gpu()) == CelResult::unknown);
    CHECK(bad.unsupported() == "= 'gpu.nvidia.com'");
    CHECK(DeviceSelector::parse("device.driver ==").unsupported() == "device.driver ==");
    CHECK(DeviceSelector::parse("").unsupported() == "(empty expression)");
    CHECK(DeviceSelector::parse(std::string(1000, '(')).matches(k_nvidia, gpu()) == CelResult::unknown);
  }
}

TEST_CASE("diagnose::DeviceSelector::matches cel parentheses and precedence") {
  CHECK(on_gpu("device.driver == 'x' || device.driver == 'gpu.nvidia.com' && true") == CelResult::match);
  CHECK(on_gpu("(device.driver == 'x' || device.driver == 'gpu.nvidia.com') && false") ==
        CelResult::no_match);
  CHECK(on_gpu("!(device.driver == 'x') && !false") == CelResult::match);
  CHECK(on_gpu("device.attributes['gpu.nvidia.com'].index == 0 ? true : false") == CelResult::match);
}
