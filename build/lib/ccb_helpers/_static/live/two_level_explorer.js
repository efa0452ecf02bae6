/* Chapter 9: TwoLevelExplorer, live (every state precomputed by ccb_helpers.live.two_level_explorer). */
CCBLive.register("TwoLevelExplorer", {
  compute: function (state, data) { return CCBLive.lookup(data, state); }
});
