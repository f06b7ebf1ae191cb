import Foundation
// swift-tools-version: 6.1
import PackageDescription

/// The key path checks exclusive access at compile time only in release
/// builds: the runtime's checks (`swift_beginAccess`) cost more than the
/// engine's own work per key event (README, Performance). Debug builds and
/// the tests keep them.
let releaseSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// The engine is optimized in debug builds too: loading a dictionary
/// unoptimized takes 30 to 60 times as long (35 s for Russian), which the
/// unit tests and the VM suite's debug daemon would wait for.
let engineSettings: [SwiftSetting] = releaseSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// Where pango's, cairo's and glib's headers are, for the agent's CPango:
/// pkg-config's -I flags alone (SwiftPM would warn of glib's -pthread).
let pangoIncludes: [SwiftSetting] = {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["pkg-config", "--cflags-only-I", "pangocairo"]
  let output = Pipe()
  process.standardOutput = output
  guard (try? process.run()) != nil else { return [] }
  let flags = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return [.unsafeFlags(flags.split(whereSeparator: \.isWhitespace).flatMap { ["-Xcc", String($0)] })]
}()

let package = Package(
  name: "vkbd",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "vkbd", targets: ["vkbd"]),
    .executable(name: "vkbd-agent", targets: ["vkbd-agent"]),
    .executable(name: "vkbd-fetch", targets: ["vkbd-fetch"]),
    .library(name: "KeyboardEngine", targets: ["KeyboardEngine"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    // Tests only: the YAML composer is checked against the parser vkbd used before.
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
  ],
  targets: [
    // The daemon's device libraries: libevdev (and uinput through it), libudev.
    .systemLibrary(
      name: "CEvdev",
      pkgConfig: "libevdev",
      providers: [.apt(["libevdev-dev", "libudev-dev"])]
    ),
    // The engine's: the kernel's key codes, and libxkbcommon for the layout.
    .systemLibrary(
      name: "CKeyboard",
      pkgConfig: "xkbcommon",
      providers: [.apt(["libxkbcommon-dev"])]
    ),
    .systemLibrary(
      name: "CSystemd",
      pkgConfig: "libsystemd",
      providers: [.apt(["libsystemd-dev"])]
    ),
    .systemLibrary(
      name: "CXCB",
      pkgConfig: "xcb",
      providers: [.apt(["libxcb1-dev", "libxcb-xkb-dev"])]
    ),
    // libwayland-client with the wlr-foreign-toplevel interfaces, for the agent.
    .target(
      name: "CAgent",
      linkerSettings: [.linkedLibrary("wayland-client")]
    ),
    // Pango and cairo, for the snippet picker's window the agent draws.
    .systemLibrary(name: "CPango", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
    // PCRE2 for UTF-32 text: the regexes of triggers and app rules.
    .systemLibrary(
      name: "CPCRE2",
      pkgConfig: "libpcre2-32",
      providers: [.apt(["libpcre2-dev"])]
    ),
    // libhunspell: the spelling dictionaries autocorrect checks words with.
    .systemLibrary(
      name: "CHunspell",
      pkgConfig: "hunspell",
      providers: [.apt(["libhunspell-dev"])]
    ),
    // libcurl, libarchive and nettle, for vkbd-fetch only: hub packages.
    .systemLibrary(
      name: "CFetch",
      providers: [.apt(["libcurl4-openssl-dev", "libarchive-dev", "nettle-dev"])]
    ),
    .systemLibrary(
      name: "CYAML",
      pkgConfig: "yaml-0.1",
      providers: [.apt(["libyaml-dev"])]
    ),
    // The system layer both executables link: typed fds and errno, the
    // event loop, line-framed connections, child processes, files.
    .systemLibrary(name: "CLinuxSystem"),
    .target(
      name: "LinuxSystem",
      dependencies: ["CLinuxSystem", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: releaseSettings
    ),
    // The messages between the session agent and the daemon, which both link.
    .target(name: "AgentProtocol"),
    .target(name: "SessionWork", dependencies: ["AgentProtocol", "LinuxSystem"]),
    // The --log-level option both executables take.
    .target(
      name: "LogOptions",
      dependencies: [
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .target(
      name: "KeyboardEngine",
      dependencies: ["CKeyboard", "CPCRE2"],
      swiftSettings: engineSettings
    ),
    // Keymaps compiled and compose tables read from the system's XKB files:
    // the layouts the engine is handed (it reads no file itself).
    .target(name: "XKBFiles", dependencies: ["KeyboardEngine", "CKeyboard"], swiftSettings: engineSettings),
    // A language's hunspell files read, and libhunspell over them: what the
    // engine's autocorrect is handed (it reads no file itself).
    .target(
      name: "HunspellFiles", dependencies: ["KeyboardEngine", "CHunspell", "LinuxSystem"], swiftSettings: engineSettings
    ),
    // The vkbd program: the daemon, its config and the commands around it.
    // A library, so that the tests import it; the executable only starts it.
    .target(
      name: "VKBDDaemon",
      dependencies: [
        "AgentProtocol",
        "CEvdev",
        "CKeyboard",
        "CLinuxSystem",
        "LinuxSystem",
        "CSystemd",
        "CYAML",
        "KeyboardEngine",
        "HunspellFiles",
        "XKBFiles",
        "SessionWork",
        "LogOptions",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      swiftSettings: releaseSettings
    ),
    .executableTarget(
      name: "vkbd",
      dependencies: ["VKBDDaemon"],
      // lld, from the Swift toolchain: it can pack relative relocations
      // (`make release` asks for that where glibc reads them).
      linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
    ),
    // What `vkbd package` runs to download and unpack: the network and
    // archive libraries are linked here, never in vkbd or the agent.
    .executableTarget(
      name: "vkbd-fetch",
      dependencies: ["CFetch"],
      linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
    ),
    // The session agent: the desktop's libraries are linked here, never in vkbd.
    // A library, so that the tests import it; the executable only starts it.
    .target(
      name: "SessionAgent",
      dependencies: [
        "AgentProtocol",
        "CAgent",
        "CPango",
        "LinuxSystem",
        "SessionWork",
        "CSystemd",
        "CXCB",
        "LogOptions",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: pangoIncludes
    ),
    .executableTarget(
      name: "vkbd-agent",
      dependencies: ["SessionAgent"],
      linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
    ),
    .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
    .target(name: "TestSupport", dependencies: ["KeyboardEngine", "LinuxSystem"], path: "Tests/TestSupport"),
    .testTarget(name: "AgentProtocolTests", dependencies: ["AgentProtocol"]),
    .testTarget(
      name: "AgentTests",
      dependencies: [
        "VKBDDaemon", "SessionAgent", "AgentProtocol", "SessionWork", "LinuxSystem",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: pangoIncludes),
    .testTarget(
      name: "KeyboardEngineTests",
      dependencies: ["KeyboardEngine", "HunspellFiles", "XKBFiles", "AllocationCounter", "CKeyboard", "TestSupport"]),
    .testTarget(
      name: "vkbdTests",
      dependencies: [
        "VKBDDaemon", "AgentProtocol", "KeyboardEngine", "XKBFiles", "CEvdev", "CKeyboard", "LinuxSystem", "LogOptions",
        "TestSupport",
        .product(name: "Yams", package: "Yams"),
      ],
      exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)

// The benchmarks (`make bench`) build only when asked for, in their own
// scratch path, so that `make check` does not build the benchmark package.
if ProcessInfo.processInfo.environment["VKBD_BENCHMARKS"] != nil {
  package.dependencies.append(
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
  package.targets.append(
    .executableTarget(
      name: "EngineBenchmarks",
      dependencies: [
        "KeyboardEngine", "HunspellFiles", "XKBFiles", "TestSupport", .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/EngineBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ))
}
