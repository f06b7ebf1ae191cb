// libhunspell's C interface: the spelling dictionaries of LibreOffice and
// Firefox, which knows every affixed and compound form of a word. The
// engine asks it whether a word is spelled right (DESIGN 9).
#ifndef CHUNSPELL_SHIM_H
#define CHUNSPELL_SHIM_H

#include <hunspell/hunspell.h>

#endif
