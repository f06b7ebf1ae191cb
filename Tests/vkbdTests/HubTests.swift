import Testing

@testable import VKBDDaemon

/// The hub's index and a package's manifest, as `vkbd package` reads them
/// (Tests/Hub/test_hub.py runs the whole command against a served hub).
@Suite struct HubTests {
  static let index = """
    {"last_update": 1704067200, "packages": [
     {"name": "calc", "author": "A", "description": "d", "title": "Calc", "version": "0.9.2", "tags": ["x"],
      "archive_url": "https://h/calc-0.9.2.zip", "archive_sha256_url": "https://h/calc-0.9.2-sha256.txt"},
     {"name": "calc", "author": "B", "description": "d", "title": "Calc", "version": "0.10.0", "tags": [],
      "archive_url": "https://h/calc-0.10.0.zip", "archive_sha256_url": "https://h/calc-0.10.0-sha256.txt"},
     {"name": "emoji", "author": "C", "description": "d", "title": "E", "version": "1.0.0",
      "archive_url": "https://h/emoji-1.0.0.zip", "archive_sha256_url": "https://h/emoji-1.0.0-sha256.txt"}]}
    """

  @Test func theHighestVersionIsTakenUnlessOneIsNamed() throws {
    let index = try HubIndex.parse(Array(Self.index.utf8), source: "test")
    #expect(index.packages.count == 3)
    #expect(index.entry("calc", version: nil)?.version == "0.10.0")
    #expect(index.entry("calc", version: "0.9.2")?.author == "A")
    #expect(index.entry("calc", version: "2.0.0") == nil)
    #expect(index.entry("nothing", version: nil) == nil)
  }

  @Test(arguments: [
    ("0.9.2", "0.10.0", true), ("0.10.0", "0.9.2", false), ("1.0.0", "1.0.0", false), ("1.0", "1.0.1", true),
    ("1.0.0-beta", "1.0.0", false), ("2.0.0", "10.0.0", true), ("01.2", "1.10", true),
  ])
  func versionsAreInNaturalOrder(first: String, second: String, precedes: Bool) {
    #expect(HubIndex.precedes(first, second) == precedes)
  }

  @Test(arguments: [
    ("<html>", "is not JSON"), ("{\"packages\": []}", "'last_update' is missing at the top"),
    ("{\"last_update\": 1, \"packages\": [{\"name\": \"x\"}]}", "'title' is missing at .packages[0]"),
    ("{\"last_update\": 1, \"packages\": {}}", "the value at .packages is of the wrong type"),
  ])
  func aBadIndexSaysWhatIsWrong(text: String, reason: String) {
    #expect {
      try HubIndex.parse(Array(text.utf8), source: "https://hub/index.json")
    } throws: { error in
      (error as? PackageError)?.description.contains(reason) == true
        && (error as? PackageError)?.status == .dataError
    }
  }

  @Test func aManifestNeedsItsFiveFields() throws {
    let manifest = try PackageManifest.parse(
      "name: calc\ntitle: Calc\ndescription: \"Sums: 1+1\"\nversion: 1.0.0\nauthor: A\ntags: [x]\nhomepage: h\n",
      file: "calc/_manifest.yml")
    #expect(
      manifest == PackageManifest(name: "calc", title: "Calc", description: "Sums: 1+1", version: "1.0.0", author: "A"))
    #expect {
      try PackageManifest.parse("name: calc\ntitle: Calc\n", file: "calc/_manifest.yml")
    } throws: { error in
      (error as? PackageError)?.problems.contains("calc/_manifest.yml:1:1: _manifest.yml needs 'version'") == true
    }
  }

  @Test(arguments: [
    ("basic-emojis", true), ("a1", true), ("../x", false), ("a/b", false), ("Calc", false), ("", false),
  ])
  func packageNamesAreTheHubs(name: String, valid: Bool) {
    #expect(PackageStore.isValidName(name) == valid)
  }

  @Test func theCacheHasAFileForEachHub() {
    let cache = HubCache(directory: "/tmp/c")
    #expect(cache.path(for: "https://a/index.json") != cache.path(for: "https://b/index.json"))
    #expect(cache.path(for: "https://a/index.json").hasPrefix("/tmp/c/"))
    #expect(cache.path(for: "https://a/index.json").hasSuffix(".json"))
  }
}
