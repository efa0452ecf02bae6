class MPIResultExplorer: pass
