"""Command-line front ends. Each is a thin layer over the Python API."""
