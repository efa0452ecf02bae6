/* Chapter 1: PropagationExplorer, live (data precomputed by ccb_helpers.live.propagation_explorer). */
CCBLive.register("PropagationExplorer", {
  // PropagationExplorer._adjust: all-port makes k irrelevant, so the k slider is disabled.
  adjust: function (name, state, controls) {
    if (name === "all_port") controls.set("k", { disabled: state.all_port });
  },
  compute: function (state, data) { return CCBLive.lookup(data, state); }
});
