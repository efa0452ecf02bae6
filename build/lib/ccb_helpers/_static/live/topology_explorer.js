/* Chapter 2: TopologyExplorer, live (data precomputed by ccb_helpers.live.topology_explorer). */
CCBLive.register("TopologyExplorer", {
  // TopologyExplorer._adjust: the size slider takes the family's range and default (SIZES).
  adjust: function (name, state, controls, data) {
    if (name !== "family") return;
    var bounds = data.sizes[state.family];
    controls.setRange("size", bounds[0], bounds[1], bounds[2]);
  },
  compute: function (state, data) { return CCBLive.lookup(data, state); }
});
