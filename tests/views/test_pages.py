import pytest


@pytest.mark.django_db
def test_home_page_says_what_the_app_is(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"13-card rummy" in response.content


@pytest.mark.django_db
def test_unknown_game_link_is_a_404(client):
    assert client.get("/g/not-a-token/").status_code == 404
    assert client.get("/w/not-a-token/").status_code == 404
