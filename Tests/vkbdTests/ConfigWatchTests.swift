import Foundation
import Glibc
import LinuxSystem
import Testing

@testable import VKBDDaemon

/// The daemon's watch on its config and match files, on a loop of the test's own.
@Suite(.serialized) struct ConfigWatchTests {
  final class Watched {
    let directory: String
    let loop: EventLoop
    var changes = 0
    var watch: ConfigWatch!

    init() throws {
      directory = "/tmp/vkbd-watch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try Files.makeDirectories(directory + "/match")
      loop = try EventLoop()
      _ = FileManager.default.createFile(atPath: config, contents: Data("matches: []\n".utf8))
      _ = FileManager.default.createFile(atPath: directory + "/match/base.yml", contents: Data("matches: []\n".utf8))
      watch = try ConfigWatch(loop: loop) { [unowned self] in changes += 1 }
      watch.watch(config: config, matchFiles: [directory + "/match/base.yml"])
    }

    var config: String { directory + "/config.yaml" }

    /// Runs the loop for `seconds`, or until `count` changes were seen;
    /// the changes seen then.
    func run(_ seconds: Double, until count: Int = .max) -> Int {
      let end = Date().addingTimeInterval(seconds)
      while Date() < end && changes < count { try? loop.runOnce(timeoutMilliseconds: 50) }
      return changes
    }

    deinit { try? Files.removeTree(directory) }
  }

  @Test func aSaveInPlaceReloadsOnceTheFilesAreQuiet() throws {
    let watched = try Watched()
    for line in 0..<5 {  // an editor's writes in a row: one reload
      try "matches: [] # \(line)\n".write(toFile: watched.config, atomically: false, encoding: .utf8)
    }
    #expect(watched.run(0.1) == 0)  // within the settle time
    #expect(watched.run(10, until: 1) == 1)
    #expect(watched.run(1) == 1)
  }

  @Test func aSaveByRenameAndANewMatchFileReload() throws {
    let watched = try Watched()
    try "layout: {layout: us}\n".write(toFile: watched.config + ".swp", atomically: false, encoding: .utf8)
    #expect(watched.run(1) == 0)  // a file of its own: not the config
    rename(watched.config + ".swp", watched.config)
    #expect(watched.run(10, until: 1) == 1)
    try "matches: []\n".write(toFile: watched.directory + "/match/new.yml", atomically: false, encoding: .utf8)
    #expect(watched.run(10, until: 2) == 2)
    try "notes\n".write(toFile: watched.directory + "/match/notes.txt", atomically: false, encoding: .utf8)
    try "x\n".write(toFile: watched.directory + "/match/.hidden.yml", atomically: false, encoding: .utf8)
    #expect(watched.run(1) == 2)
  }

  @Test func aDeletedConfigIsAChangeToo() throws {
    let watched = try Watched()
    unlink(watched.config)
    #expect(watched.run(10, until: 1) == 1)
  }

  @Test func notificationsAreAKeyOfTheConfig() throws {
    #expect(try ConfigLoader.parse("", file: "c.yaml").notifications)
    #expect(try !ConfigLoader.parse("notifications: false\n", file: "c.yaml").notifications)
    #expect {
      try ConfigLoader.parse("notifications: sometimes\n", file: "c.yaml")
    } throws: { error in
      (error as? ConfigErrors)?.problems.first?.description.hasPrefix("c.yaml:1:16: notifications must be") == true
    }
  }
}
