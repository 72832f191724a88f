"""Save the work to a file and open it again, without the file dialogs."""
def test_save_and_reopen(relulab_window, tmp_path):
    folding = relulab_window.show_panel("folding")
    folding.set_depth(7)
    assert relulab_window.save_as(tmp_path / "work")  # adds .relulab.json
    folding.set_depth(3)
    relulab_window.show_panel("hinges")
    assert relulab_window.open_scene(tmp_path / "work.relulab.json")
    assert relulab_window.current_panel() is folding
    assert folding.readouts()["depth"] == 7
