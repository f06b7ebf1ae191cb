import CEvdev
import Glibc
import KeyboardEngine
import LinuxSystem

/// Tells whether the system slept since the last loop turn: CLOCK_BOOTTIME
/// runs on while it sleeps, CLOCK_MONOTONIC does not.
struct SleepWatch {
  /// CLOCK_BOOTTIME − CLOCK_MONOTONIC at the last sleep noticed, in microseconds.
  private var timeAsleepBefore = microseconds(of: CLOCK_BOOTTIME) - monotonicMicroseconds()
  /// CLOCK_BOOTTIME at the last loop turn, in microseconds.
  private var bootTimeBefore = microseconds(of: CLOCK_BOOTTIME)

  /// Whether the system slept (for over a second) since the last call.
  mutating func sleptSinceLastTurn() -> Bool {
    // The time asleep grows no faster than CLOCK_BOOTTIME: while keys come
    // less than a second apart, one clock read a turn tells it cannot have
    // grown by a second.
    let boot = microseconds(of: CLOCK_BOOTTIME)
    defer { bootTimeBefore = boot }
    guard boot - bootTimeBefore > 1_000_000 else { return false }
    let asleep = boot - monotonicMicroseconds()
    guard asleep - timeAsleepBefore > 1_000_000 else { return false }
    timeAsleepBefore = asleep
    return true
  }
}

extension Daemon {
  /// After a suspend, what was held before it means nothing: every key goes
  /// up on the virtual keyboard, the keys the kernel says are down now
  /// (EVIOCGKEY) go down again, and the keys pressed or released since the
  /// wake follow as their events say.
  func noticeSleep() {
    guard sleepWatch.sleptSinceLastTurn() else { return }
    logger.notice("the system slept; releasing every key and reading the keyboards again")
    let grabbed = devices.grabbed
    // The events since the wake are read first; the keys down are then
    // those the events delivered say (the kernel's own state: evdev delivers
    // every change, or SYN_DROPPED and a resync). Not EVIOCGKEY here: it
    // drops the events still waiting, and a key tapped between the read and
    // it would be lost.
    var pending: [(input: InputDevices.Input, event: input_event, resynced: Bool)] = []
    for input in grabbed {
      // A pointer half lets go of its buttons; its events since the wake
      // go out as they came.
      do {
        try input.pointer?.releaseButtons()
      } catch {
        logger.error("\(error)")
      }
      _ = input.device.readEvents { event, resynced in
        if let pointer = input.pointer, (try? pointer.take(event, onClick: {})) != false { return }
        if event.type == UInt16(EV_KEY) { pending.append((input, event, resynced)) }
      }
    }
    // The keys, not the pointer buttons, of each keyboard.
    let kernelState = grabbed.map { input in
      input.device.keysDown.enumerated().map { code, down in
        down && !(input.pointer != nil && PointerFrame.isButton(code))
      }
    }
    engine.releaseAll(into: &output)
    flush(sourceTime: nil)
    engine.resetText()
    let now = Instant(microseconds: monotonicMicroseconds())
    for (input, down) in zip(grabbed, kernelState) {
      input.held = [Bool](repeating: false, count: KeyCode.count)
      for code in 0..<KeyCode.count
      where down[code] && !pending.contains(where: { $0.input === input && Int($0.event.code) == code }) {
        press(UInt16(code), down: true, on: input, at: now)
      }
    }
    flush(sourceTime: nil)
    for (input, event, resynced) in pending where exitStatus == nil {
      keyEvent(event, from: input, resynced: resynced)
    }
    guard exitStatus == nil else { return }  // the panic chord, among those events
    for (input, down) in zip(grabbed, kernelState) {
      for code in 0..<KeyCode.count where input.held[code] != down[code] {
        press(UInt16(code), down: down[code], on: input, at: now)
      }
    }
    flush(sourceTime: nil)
  }
}
