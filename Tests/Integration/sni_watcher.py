"""A StatusNotifierWatcher and host for the tests, on the session bus (Gio):
it owns org.kde.StatusNotifierWatcher as a tray does, and for each item
that registers prints one JSON line a change: its properties (GetAll), its
menu (GetLayout), again at each of its signals, and `gone` when its name
loses its owner. Lines on standard input click a menu item:
`click ID` calls Event as GNOME and KDE do, `group ID` EventGroup as
waybar's libdbusmenu does."""

import json
import sys

from gi.repository import Gio, GLib

WATCHER = """<node><interface name='org.kde.StatusNotifierWatcher'>
<method name='RegisterStatusNotifierItem'><arg name='service' type='s' direction='in'/></method>
<method name='RegisterStatusNotifierHost'><arg name='service' type='s' direction='in'/></method>
<property name='RegisteredStatusNotifierItems' type='as' access='read'/>
<property name='IsStatusNotifierHostRegistered' type='b' access='read'/>
<property name='ProtocolVersion' type='i' access='read'/>
<signal name='StatusNotifierItemRegistered'><arg type='s'/></signal>
<signal name='StatusNotifierItemUnregistered'><arg type='s'/></signal>
</interface></node>"""

items = {}  # bus name -> (object path, menu path)
owners = {}  # bus name -> the unique name that registered it
bus = None


def out(**fields):
    print(json.dumps(fields), flush=True)


def call(name, path, interface, method, arguments, reply_type, done):
    def finished(connection, result):
        try:
            done(connection.call_finish(result).unpack())
        except GLib.Error as error:
            out(event="error", method=method, error=error.message)
    bus.call(name, path, interface, method, arguments, reply_type, Gio.DBusCallFlags.NONE, 5000, None, finished)


def read_item(name):
    path, _ = items[name]

    def got(properties):
        properties = properties[0]
        items[name] = (path, properties.get("Menu"))
        tooltip = properties.get("ToolTip")
        out(event="item", name=name, icon=properties.get("IconName"), status=properties.get("Status"),
            id=properties.get("Id"), category=properties.get("Category"), menu=properties.get("Menu"),
            itemIsMenu=properties.get("ItemIsMenu"), tooltip=list(tooltip[2:]) if tooltip else None)
        if properties.get("Menu"):
            call(name, properties["Menu"], "com.canonical.dbusmenu", "GetLayout", GLib.Variant("(iias)", (0, -1, [])),
                 None, lambda layout: out(event="menu", name=name, revision=layout[0], items=[
                     {"id": child[0], **{key: value for key, value in child[1].items()}} for child in layout[1][2]]))
    call(name, path, "org.freedesktop.DBus.Properties", "GetAll",
         GLib.Variant("(s)", ("org.kde.StatusNotifierItem",)), None, got)


def on_call(connection, sender, path, interface, method, parameters, invocation):
    if method == "RegisterStatusNotifierItem":
        service = parameters.unpack()[0]
        name, item_path = (sender, service) if service.startswith("/") else (service, "/StatusNotifierItem")
        invocation.return_value(None)
        items[name] = (item_path, None)
        owners[name] = sender
        out(event="registered", name=name, sender=sender)
        read_item(name)
    else:
        invocation.return_value(None)


def on_property(connection, sender, path, interface, name):
    return {"RegisteredStatusNotifierItems": GLib.Variant("as", list(items)),
            "IsStatusNotifierHostRegistered": GLib.Variant("b", True),
            "ProtocolVersion": GLib.Variant("i", 0)}[name]


def on_signal(connection, sender, path, interface, member, parameters):
    if interface == "org.freedesktop.DBus" and member == "NameOwnerChanged":
        name, _, new = parameters.unpack()
        if name in items and not new:
            del items[name]
            owners.pop(name, None)
            out(event="gone", name=name)
        return
    for name in list(items):
        if sender in (name, owners.get(name)):
            out(event="signal", name=name, member=member)
            read_item(name)


def on_stdin(channel, condition):
    line = channel.readline()
    if not line:
        GLib.MainLoop().quit()
        return False
    command, item = line.split()
    for name, (_, menu) in items.items():
        if menu is None:
            continue
        if command == "click":
            call(name, menu, "com.canonical.dbusmenu", "Event",
                 GLib.Variant("(isvu)", (int(item), "clicked", GLib.Variant("i", 0), 0)), None,
                 lambda _: out(event="clicked", id=int(item)))
        else:
            call(name, menu, "com.canonical.dbusmenu", "EventGroup",
                 GLib.Variant("(a(isvu))", ([(int(item), "clicked", GLib.Variant("i", 0), 0)],)), None,
                 lambda result: out(event="clicked", id=int(item), unknown=list(result[0])))
    return True


def on_bus(connection, name):
    global bus
    bus = connection
    connection.register_object("/StatusNotifierWatcher", Gio.DBusNodeInfo.new_for_xml(WATCHER).interfaces[0],
                               on_call, on_property, None)
    connection.signal_subscribe(None, None, None, None, None, Gio.DBusSignalFlags.NONE, on_signal)


Gio.bus_own_name(Gio.BusType.SESSION, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE, on_bus,
                 lambda connection, name: out(event="watcher-ready"), lambda connection, name: sys.exit(1))
GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, on_stdin)
GLib.MainLoop().run()
