import CLinuxSystem
import Glibc

/// What the daemon gives up once its virtual keyboard, devices and control
/// socket are open: it can never gain a privilege again nor run another
/// program, and as root it keeps no capability. Opening a keyboard plugged in
/// later and reading the config on reload need none: the nodes and the files
/// (vkbd refuses any other) belong to root.
public enum Privileges {
  /// Gives up what it can; returns the steps the kernel refused (a kernel
  /// without seccomp filters, an architecture the filter does not know).
  public static func dropAfterStart() -> [SystemError] {
    var refused: [SystemError] = []
    if CLinuxSystem_setNoNewPrivileges() != 0 { refused.append(SystemError("prctl(PR_SET_NO_NEW_PRIVS)")) }
    // Not root (file capabilities, an ambient set): what it was given, it needs.
    if geteuid() == 0 && CLinuxSystem_dropCapabilities() != 0 { refused.append(SystemError("capset")) }
    if CLinuxSystem_forbidExec() != 0 { refused.append(SystemError("seccomp")) }
    return refused
  }
}
