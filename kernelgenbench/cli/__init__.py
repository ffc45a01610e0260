"""The `kgb` command line: one module per subcommand, each parsing arguments and calling the library."""
