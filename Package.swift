// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "vkbd",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "vkbd", targets: ["vkbd"]),
    .library(name: "KeyboardEngine", targets: ["KeyboardEngine"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CEvdev",
      pkgConfig: "libevdev",
      providers: [.apt(["libevdev-dev", "libudev-dev", "libxkbcommon-dev"])]
    ),
    .target(
      name: "KeyboardEngine",
      dependencies: ["CEvdev"]
    ),
    .executableTarget(
      name: "vkbd",
      dependencies: [
        "CEvdev",
        "KeyboardEngine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Yams", package: "Yams"),
      ]
    ),
    .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
    .testTarget(name: "KeyboardEngineTests", dependencies: ["KeyboardEngine", "AllocationCounter", "CEvdev"]),
    .testTarget(name: "vkbdTests", dependencies: ["vkbd", "KeyboardEngine", "CEvdev"]),
  ],
  swiftLanguageModes: [.v6]
)
