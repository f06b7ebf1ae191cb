import Foundation
import Glibc
import Logging
import Testing

@testable import SessionAgent

/// The agent started before GNOME Shell serves its interface, as at a
/// login (the desktop test saw it: the shell took its name, and its
/// /org/gnome/Shell came a second later).
extension ShellBridgeTests {
  /// A stand-in for GNOME Shell in Python (Gio) on the private bus: it
  /// takes the shell's name at once and serves its Extensions interface
  /// `delay` seconds later; EnableExtension answers true, and user
  /// extensions are on.
  final class LateShell {
    private let process: Process
    private let ready: String

    init(delay: Double) throws {
      ready = "/tmp/vkbd-late-shell-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      let script = """
        import sys
        from gi.repository import Gio, GLib
        XML = '''<node><interface name='org.gnome.Shell.Extensions'><method name='EnableExtension'>
        <arg type='s' direction='in'/><arg type='b' direction='out'/></method>
        <property name='UserExtensionsEnabled' type='b' access='read'/></interface></node>'''
        def call(connection, sender, path, interface, method, parameters, invocation):
            invocation.return_value(GLib.Variant('(b)', (True,)))
        def serve(connection):
            connection.register_object('/org/gnome/Shell', Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0],
                call, lambda *arguments: GLib.Variant('b', True), None)
            return False
        def acquired(connection, name):
            open(sys.argv[1], 'w').close()
            GLib.timeout_add(int(\(delay) * 1000), serve, connection)
        Gio.bus_own_name(Gio.BusType.SESSION, 'org.gnome.Shell', 0, None, acquired, None)
        GLib.MainLoop().run()
        """
      process = try ShellBridgeTests.runPython(script, argument: ready, ready: ready)
    }

    deinit {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      unlink(ready)
    }
  }

  @Test func theAgentWaitsForAShellThatHasItsNameButNotYetItsInterface() throws {
    let bus = try PrivateBus()
    let shell = try LateShell(delay: 1.5)
    let bridge = try ShellBridge(desktop: .gnome, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    let start = Date()
    // The first ask finds no /org/gnome/Shell: the agent asks again.
    try bridge.start()
    #expect(Date().timeIntervalSince(start) > 1)
    withExtendedLifetime((bus, shell)) {}
  }
}
