// libyaml's event parser: the config and snippet files are YAML, and vkbd
// composes their trees itself (Sources/VKBDDaemon/Config/YAML.swift).
#ifndef CYAML_SHIM_H
#define CYAML_SHIM_H

#include <yaml.h>

#endif
