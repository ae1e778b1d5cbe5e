# type stubs
