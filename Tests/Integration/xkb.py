"""Reads what a stream of key events types, through libxkbcommon (ctypes):
an independent check of the characters vkbd's virtual keyboard produces."""

import ctypes

_lib = ctypes.CDLL("libxkbcommon.so.0")


class _RuleNames(ctypes.Structure):
    _fields_ = [(name, ctypes.c_char_p) for name in ("rules", "model", "layout", "variant", "options")]


_lib.xkb_context_new.restype = ctypes.c_void_p
_lib.xkb_context_new.argtypes = [ctypes.c_int]
_lib.xkb_keymap_new_from_names.restype = ctypes.c_void_p
_lib.xkb_keymap_new_from_names.argtypes = [ctypes.c_void_p, ctypes.POINTER(_RuleNames), ctypes.c_int]
_lib.xkb_state_new.restype = ctypes.c_void_p
_lib.xkb_state_new.argtypes = [ctypes.c_void_p]
_lib.xkb_state_update_key.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int]
_lib.xkb_state_key_get_utf8.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
_lib.xkb_state_key_get_one_sym.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
_lib.xkb_state_key_get_one_sym.restype = ctypes.c_uint32

KEY_BACKSPACE = 14
KEY_ENTER = 28


class Typist:
    """Turns key events into text as a text field with this layout would:
    characters insert, BackSpace deletes, Enter is a newline."""

    def __init__(self, layout, variant="", options=""):
        context = _lib.xkb_context_new(0)
        names = _RuleNames(b"evdev", b"pc105", layout.encode(), variant.encode(), options.encode())
        self.keymap = _lib.xkb_keymap_new_from_names(context, ctypes.byref(names), 0)
        if not self.keymap:
            raise RuntimeError("no keymap for %s" % layout)
        self.state = _lib.xkb_state_new(self.keymap)
        self.text = []

    def feed(self, code, value):
        """One EV_KEY event (value 1 down, 0 up; repeats are ignored)."""
        keycode = code + 8
        if value == 1:
            if code == KEY_BACKSPACE:
                if self.text:
                    self.text.pop()
            elif code == KEY_ENTER:
                self.text.append("\n")
            else:
                buffer = ctypes.create_string_buffer(16)
                length = _lib.xkb_state_key_get_utf8(self.state, keycode, buffer, 16)
                character = buffer.value.decode("utf-8") if length > 0 else ""
                if character and character.isprintable():
                    self.text.append(character)
            _lib.xkb_state_update_key(self.state, keycode, 1)
        elif value == 0:
            _lib.xkb_state_update_key(self.state, keycode, 0)

    def typed(self, events):
        for code, value in events:
            self.feed(code, value)
        return "".join(self.text)
