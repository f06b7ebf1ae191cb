/// The version of vkbd, which the daemon and the agent share.
public enum VKBDVersion {
  public static let current = "0.1.0"
}
